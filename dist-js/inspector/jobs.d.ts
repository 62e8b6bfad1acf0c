import type { Shell } from "./types";
/** Draws the Jobs tab into its panel; its functions read and draw it again. */
export declare function mountJobs(shell: Shell): {
    tbody: HTMLElement;
    loadJobs: () => Promise<void>;
    select: (id: number | null) => Promise<void>;
    drawDetail: (id: number) => Promise<void>;
    suggestKinds: (kinds: Iterable<string>) => void;
};
/** The Jobs tab, as {@link mountJobs} returns it. */
export type JobsTab = ReturnType<typeof mountJobs>;
