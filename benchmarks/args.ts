/** The number given on the command line as `--name=value`, else `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`));
  return given === undefined ? fallback : Number(given.slice(name.length + 3));
}
