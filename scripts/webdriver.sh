# Sourced by scripts/e2e.sh and scripts/quickstart.sh: a real webview for webdriverio
# to drive (Xvfb, tauri-driver, WebKitWebDriver).
#
# start_webdriver DIR installs tauri-driver when it is missing, starts Xvfb on a
# random display and tauri-driver on a random port (their logs in DIR), and exports
# DISPLAY and TAURI_DRIVER_PORT. The app tauri-driver launches inherits tauri-driver's
# environment: export what the app should see before calling it. stop_webdriver ends
# both; driver_log prints the end of tauri-driver's log.

webdriver_pids=()
webdriver_dir=""

start_webdriver() {
  webdriver_dir=$1
  if ! command -v tauri-driver >/dev/null 2>&1; then
    echo "webdriver: installing tauri-driver"
    cargo install tauri-driver --version '^2' --locked --quiet
  fi
  local display=$((100 + RANDOM % 800))
  Xvfb ":$display" -screen 0 1280x900x24 -nolisten tcp >"$webdriver_dir/xvfb.log" 2>&1 &
  webdriver_pids+=($!)
  export DISPLAY=":$display"
  export TAURI_DRIVER_PORT=$((4500 + RANDOM % 400))
  tauri-driver --port "$TAURI_DRIVER_PORT" --native-driver /usr/bin/WebKitWebDriver \
    >"$webdriver_dir/driver.log" 2>&1 &
  webdriver_pids+=($!)
  sleep 1
}

stop_webdriver() {
  local pid
  for pid in "${webdriver_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  webdriver_pids=()
}

driver_log() {
  echo "--- tauri-driver log"
  tail -40 "$webdriver_dir/driver.log" || true
}
