//! Nothing but its tests (`tests/`): the plugin built without its default features.
