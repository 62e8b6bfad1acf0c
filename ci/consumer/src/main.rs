// As create-tauri-app writes it: the app lives in the library.
fn main() {
    consumer_lib::run()
}
