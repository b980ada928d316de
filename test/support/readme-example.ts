/** The README's library example: the code of the one ```js block under "## Use it as a library". */
export function readmeLibraryExample(readme: string): string {
  const section = readme.indexOf("\n## Use it as a library\n");
  if (section < 0) throw new Error('README.md has no "## Use it as a library" section');
  const from = readme.indexOf("```js\n", section);
  if (from < 0) throw new Error("README.md's library section has no ```js block");
  const start = from + "```js\n".length;
  return readme.slice(start, readme.indexOf("```\n", start));
}
