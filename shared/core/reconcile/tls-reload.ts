// Certificate renewal without a restart: a node loads its certificate files at start-up and
// again on CONFIG SET tls-cert-file/tls-key-file/tls-ca-cert-file (Redis 6+, same paths
// included). Planned from fingerprints only: the Secret's tls.crt against the certificate each
// node serves in a TLS handshake. A node still serving another one is told to reload; until the
// kubelet has written the renewed files, the reload loads the old ones again, so the plan stays
// pending and the next pass looks again (level-based: no record to keep).

/** The sha256 fingerprint a node serves (undefined: not reachable this pass). */
export interface ServedCertificate {
  readonly node: string;
  readonly fingerprint: string | undefined;
}

export interface CertificatePlan {
  /** Nodes to reload (CONFIG SET tls-* to their own paths). */
  readonly reload: readonly string[];
  /** Some node does not serve the Secret's certificate yet. */
  readonly pending: boolean;
  /** For status: "reloading TLS certificates: 4/6 nodes serve the renewed certificate". */
  readonly progress?: string;
}

export function planCertificateReload(wanted: string, served: readonly ServedCertificate[]): CertificatePlan {
  const reachable = served.filter((s) => s.fingerprint !== undefined);
  const stale = reachable.filter((s) => s.fingerprint !== wanted).map((s) => s.node);
  if (stale.length === 0) return { reload: [], pending: false };
  return {
    reload: stale,
    pending: true,
    progress: `reloading TLS certificates: ${reachable.length - stale.length}/${served.length} nodes serve the renewed certificate`,
  };
}
