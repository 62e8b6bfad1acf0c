export type Thumbnail = { path: string; width: number; quality?: number | null };
export type Sized = { path: string; bytes: number };
