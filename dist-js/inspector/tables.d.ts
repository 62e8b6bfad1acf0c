import type { JobsTab } from "./jobs";
import type { Shell } from "./types";
/** Sets up the table tabs (drawn when read); a schedule's last job opens in the Jobs tab. */
export declare function mountTables(shell: Shell, jobs: Pick<JobsTab, "select" | "suggestKinds">): {
    loadCounts: () => Promise<void>;
    loadSchedules: () => Promise<void>;
    loadSync: () => Promise<void>;
    loadLocal: () => Promise<void>;
};
/** The table tabs, as {@link mountTables} returns them. */
export type Tables = ReturnType<typeof mountTables>;
