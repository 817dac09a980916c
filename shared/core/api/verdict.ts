// What an admission check returns: reasons to refuse (empty means allowed) and warnings.
export interface Verdict {
  denials: string[];
  warnings: string[];
}

export const emptyVerdict = (): Verdict => ({ denials: [], warnings: [] });
