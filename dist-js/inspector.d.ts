import type { Inspector, InspectorOptions } from "./inspector/types";
export type { Inspector, InspectorOptions, InspectorView } from "./inspector/types";
/**
 * Draws the inspector into `host` (in its shadow root, made if it has none) and keeps
 * it live until {@link Inspector.destroy}.
 */
export declare function mountInspector(host: HTMLElement, options?: InspectorOptions): Inspector;
/**
 * Registers the `<jobs-inspector>` element (or another tag name). Attributes: `view`
 * (the tab shown: the first one, and the one shown whenever the attribute changes),
 * `page-size`, and `admin="false"` to hide the actions even where the window may use
 * them. Calling it again does nothing.
 */
export declare function defineInspector(tag?: string): void;
