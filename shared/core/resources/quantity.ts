// Kubernetes resource quantities (`1Gi`, `1500M`, `1e9`) as numbers, to compare sizes. Pure:
// the client library's parser lives in an I/O package the core must not import.
const SUFFIX: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The value of a quantity, or undefined when it is not one. */
export function parseQuantity(text: string | number | undefined): number | undefined {
  if (typeof text === 'number') return text;
  const match = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|([KMGTPE]i|[mkMGTPE])?)$/.exec(text?.trim() ?? '');
  if (!match) return undefined;
  const [, number, exponent, suffix] = match;
  return Number(`${number}${exponent ?? ''}`) * (SUFFIX[suffix ?? ''] ?? 1);
}

/** Negative, zero or positive as a is less than, equal to or more than b; undefined if either is no quantity. */
export function compareQuantities(a: string | undefined, b: string | undefined): number | undefined {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  return x === undefined || y === undefined ? undefined : Math.sign(x - y);
}
