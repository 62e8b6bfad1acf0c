//! The builder's side of [`typescript`](crate::typescript): what it registered, as
//! declarations for the webview, written in debug builds and checked in tests.

use super::Builder;
use crate::typescript::{Declared, Typescript, TypescriptError};

impl Builder {
    /// Writes the app's kinds, local kinds, sync targets and schedules as TypeScript
    /// declarations (see [`Typescript`]) when the plugin is built, in debug builds only,
    /// and only when they changed (a dev server does not reload for nothing). A file
    /// at that path that the plugin did not write is left alone; what went wrong is
    /// logged at WARN. Release builds never write it: commit the file with the code,
    /// and check it in a test with [`check_typescript`](Builder::check_typescript).
    pub fn typescript(mut self, declarations: Typescript) -> Self {
        self.typescript = Some(declarations);
        self
    }

    /// The declarations of what this builder registered, as `declarations` types them.
    ///
    /// # Errors
    ///
    /// [`TypescriptError::NoType`] for a payload, result or arguments type it cannot
    /// write, [`TypescriptError::Pattern`] for a target pattern it refuses.
    pub fn typescript_declarations(
        &self,
        declarations: &Typescript,
    ) -> Result<String, TypescriptError> {
        declarations.render(&self.declared())
    }

    /// Fails unless the file holds the declarations of what this builder registered:
    /// for a test, so a handler changed without the file fails CI.
    ///
    /// # Errors
    ///
    /// [`TypescriptError::Stale`] naming the first line that differs (a missing file
    /// differs at line 1), or why the declarations cannot be written.
    pub fn check_typescript(&self, declarations: &Typescript) -> Result<(), TypescriptError> {
        declarations.check(&self.declared())
    }

    /// Writes the file now when it differs, whatever the build; whether it wrote.
    ///
    /// # Errors
    ///
    /// [`TypescriptError::NotOurs`] for a file there that the plugin did not write
    /// (left as it is), an I/O error, or why the declarations cannot be written.
    pub fn write_typescript(&self, declarations: &Typescript) -> Result<bool, TypescriptError> {
        declarations.write(&self.declared())
    }

    /// Writes the declarations named with [`typescript`](Builder::typescript) now,
    /// in any build, when they differ; whether it wrote. For the app's test that its
    /// `npm run build` runs first (the quick start's `jobs_kinds`), so the webview is
    /// type-checked against the kinds as the code registers them, without running the
    /// app.
    ///
    /// # Errors
    ///
    /// [`TypescriptError::NoFile`] when the builder names no file, and what
    /// [`write_typescript`](Builder::write_typescript) returns.
    pub fn update_typescript(&self) -> Result<bool, TypescriptError> {
        let declarations = self.typescript.as_ref().ok_or(TypescriptError::NoFile)?;
        self.write_typescript(declarations)
    }

    pub(super) fn write_declarations_in_debug_builds(&self) {
        let Some(declarations) = &self.typescript else {
            return;
        };
        if !cfg!(debug_assertions) {
            return;
        }
        match self.write_typescript(declarations) {
            Ok(true) => tracing::info!(
                path = %declarations.path().display(),
                "wrote the TypeScript declarations of the app's kinds"
            ),
            Ok(false) => {}
            Err(error) => tracing::warn!(%error, "the TypeScript declarations were not written"),
        }
    }

    fn declared(&self) -> Declared {
        // A kind registered twice is declared once, with its last handler; an agent
        // kind that a handler also runs, with the handler's types.
        let mut jobs = std::collections::BTreeMap::new();
        for handler in &self.handlers {
            jobs.insert(handler.kind.clone(), Some(handler.types));
        }
        for kind in &self.agent_kinds {
            jobs.entry(kind.clone()).or_insert(None);
        }
        Declared {
            jobs: jobs.into_iter().collect(),
            local: self.local_kinds.declared(),
            targets: self
                .targets
                .iter()
                .map(|(target, _, _)| target.to_string())
                .collect(),
            schedules: self
                .schedules
                .iter()
                .map(|schedule| schedule.name.clone())
                .collect(),
        }
    }
}
