// murmurhash3js 3.0.1 ships no types; only the function the engine uses is declared
// (docs/evaluation.md §3).
declare module 'murmurhash3js' {
  const murmurhash3js: {
    x86: {
      /** Unsigned 32-bit hash of the low byte of each UTF-16 code unit of `key` (§3). */
      hash32(key: string, seed?: number): number;
    };
  };
  export default murmurhash3js;
}
