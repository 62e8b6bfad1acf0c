//! The Tauri app a handler, a local job or a sync source runs in: the plugin hands its
//! `AppHandle` to each of them (`ctx.app()`), so they reach the app's managed state,
//! its paths and its events the way the rest of a Tauri app does.

use std::any::{type_name, Any};
use std::sync::Arc;

use tauri::{AppHandle, Runtime};

/// The app's handle, whatever its runtime, or none (a [`Queue`](crate::queue::Queue)
/// and [`Runner`](crate::runner::Runner) of their own, outside the plugin). Cheap to
/// clone: one pointer.
#[derive(Clone, Default)]
pub(crate) struct AppSlot(Option<Arc<App>>);

struct App {
    handle: Box<dyn Any + Send + Sync>,
    runtime: &'static str,
}

impl AppSlot {
    /// The slot holding `app`.
    pub(crate) fn of<R: Runtime>(app: &AppHandle<R>) -> AppSlot {
        AppSlot(Some(Arc::new(App {
            handle: Box::new(app.clone()),
            runtime: type_name::<R>(),
        })))
    }

    /// The app's handle on runtime `R`, or why there is none.
    pub(crate) fn get<R: Runtime>(&self) -> crate::Result<AppHandle<R>> {
        let wanted = type_name::<R>();
        let Some(app) = &self.0 else {
            return Err(crate::Error::NoApp {
                wanted,
                reason: "this runs outside a Tauri app (a queue, runner or engine opened \
                         without the plugin, or a test of its own): there is no app to hand it"
                    .into(),
            });
        };
        app.handle
            .downcast_ref::<AppHandle<R>>()
            .cloned()
            .ok_or_else(|| crate::Error::NoApp {
                wanted,
                reason: format!(
                    "the app runs on `{}`; name that runtime (in a `fn jobs_plugin<R: Runtime>()`, \
                     `ctx.app::<R>()`)",
                    app.runtime
                ),
            })
    }
}

impl std::fmt::Debug for AppSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(app) => write!(f, "AppSlot({})", app.runtime),
            None => f.write_str("AppSlot(none)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use tauri::test::{mock_app, MockRuntime};
    use tauri::Manager;

    use super::*;

    #[test]
    fn hands_the_app_on_its_runtime_and_says_why_not_otherwise() {
        let app = mock_app();
        app.manage(7u32);
        let slot = AppSlot::of(app.handle());
        let handle = slot.get::<MockRuntime>().unwrap();
        assert_eq!(*handle.state::<u32>(), 7);

        let Err(none) = AppSlot::default().get::<MockRuntime>() else {
            panic!("an empty slot handed an app");
        };
        assert!(matches!(none, crate::Error::NoApp { .. }), "{none}");
        assert!(none.to_string().contains("outside a Tauri app"), "{none}");
    }
}
