/** The command line's options, as the benchmark scripts read them: `--name=value`. */

/** The value given as `--name=value`, if any. */
export function stringArg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** The comma-separated values given as `--name=a,b`, if any. */
export function listArg(name: string): string[] | undefined {
  return stringArg(name)?.split(',');
}

/** The number given as `--name=value`, else `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const given = stringArg(name);
  return given === undefined ? fallback : Number(given);
}
