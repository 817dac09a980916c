// Pods run on the host, not in a container, so paths a container expects under a volume's
// mountPath (`/data`, `/etc/redis/redis.conf`) are rewritten to the volume's host directory
// wherever they appear in command, args, env values and probe commands. Files' CONTENTS are
// not rewritten: a config file must not embed absolute paths under a mountPath (use relative
// paths, or pass them as command-line arguments, which are rewritten).

export interface PathMapping {
  /** Absolute path inside the container, e.g. `/data`. */
  readonly mountPath: string;
  /** Where that path lives on the host. */
  readonly hostPath: string;
}

/** Rewrites every occurrence of a mountPath that stands as a whole path (or its prefix). */
export function mapPaths(text: string, mappings: readonly PathMapping[]): string {
  // Longest mountPath first so `/etc/redis/conf` wins over `/etc/redis`; `/` is never rewritten.
  const sorted = [...mappings]
    .map(normalize)
    .filter((m) => m.mountPath !== '/')
    .sort((a, b) => b.mountPath.length - a.mountPath.length);
  if (sorted.length === 0 || text === '') return text;
  const pattern = new RegExp(
    sorted.map((m) => `(?<![\\w./-])${escape(m.mountPath)}(?=$|[/\\s"'=:;,)}\\]])`).join('|'),
    'g',
  );
  return text.replace(pattern, (found) => sorted.find((m) => m.mountPath === found)?.hostPath ?? found);
}

/** The host path of a container path, or undefined when no volume covers it. */
export function hostPathOf(containerPath: string, mappings: readonly PathMapping[]): string | undefined {
  const path = containerPath.replace(/\/+$/, '') || '/';
  const best = [...mappings]
    .map(normalize)
    .filter((m) => path === m.mountPath || path.startsWith(m.mountPath === '/' ? '/' : `${m.mountPath}/`))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  if (!best) return undefined;
  const rest = path.slice(best.mountPath.length).replace(/^\/+/, '');
  return rest ? `${best.hostPath}/${rest}` : best.hostPath;
}

function normalize(m: PathMapping): PathMapping {
  return { mountPath: m.mountPath.replace(/\/+$/, '') || '/', hostPath: m.hostPath.replace(/\/+$/, '') };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
