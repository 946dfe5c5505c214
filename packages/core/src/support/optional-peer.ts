/**
 * Throws the start-up error of an option whose optional peer dependency `name` cannot be found
 * by `resolve` (ESM resolution, as `import(name)` will do it: it ignores NODE_PATH, unlike
 * require), naming the option and how to install the package.
 */
export function assertPeerInstalled(
  option: string,
  name: string,
  resolve: (specifier: string) => string,
): void {
  try {
    resolve(name);
  } catch (error) {
    throw new TypeError(
      `Invalid Portcullis option "${option}" needs the ${name} package, which cannot be found: install it next to @portcullis/core (npm install ${name})`,
      { cause: error },
    );
  }
}
