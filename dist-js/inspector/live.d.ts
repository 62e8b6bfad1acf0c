import type { HistoryTab } from "./history";
import type { JobsTab } from "./jobs";
import type { Tables } from "./tables";
import type { Shell } from "./types";
/** The listener of a drawn inspector; the shell starts it after the first render. */
export declare function liveUpdates(shell: Shell, jobs: JobsTab, tables: Tables, history: HistoryTab): {
    listen: () => Promise<void>;
};
