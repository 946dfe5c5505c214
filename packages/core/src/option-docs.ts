/**
 * Test support for docs.test.ts and published-types.test.ts (not part of the package: only
 * `index.ts` is built): the options' TSDoc read with the TypeScript compiler's parser. In a file
 * of its own so that the other tests, which import test-support.ts, do not load the compiler
 * (about 0.8 s per test file).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve as resolvePath } from "node:path";
import ts from "typescript";

/**
 * The TSDoc of every property of the `AuthOptionFields` interface in `file` (source or built `.d.ts`)
 * and of the option interfaces it refers to (`EmailOptions`…), by dotted path
 * (`email.cooldownSeconds`); "" for an undocumented one. The interfaces of the sibling source
 * files `file` imports (`./captcha-options.js`) count too.
 */
export function optionDocs(file: string): Map<string, string> {
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const seen = new Set<string>();
  const read = (path: string): void => {
    seen.add(path);
    const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
    source.forEachChild((statement) => {
      if (ts.isInterfaceDeclaration(statement)) interfaces.set(statement.name.text, statement);
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) return;
      const specifier = statement.moduleSpecifier.text;
      const sibling = resolvePath(dirname(path), specifier.replace(/\.js$/, ".ts"));
      if (specifier.startsWith("./") && !seen.has(sibling) && existsSync(sibling)) read(sibling);
    });
  };
  read(file);
  const docs = new Map<string, string>();
  const visit = (declaration: ts.InterfaceDeclaration | undefined, path: string[]) => {
    for (const member of declaration?.members ?? []) {
      if (!ts.isPropertySignature(member) || !ts.isIdentifier(member.name)) continue;
      const here = [...path, member.name.text];
      const doc = ts
        .getJSDocCommentsAndTags(member)
        .map((jsDoc) => ts.getTextOfJSDocComment(jsDoc.comment) ?? "")
        .join(" ")
        .replace(/\s+/g, " ")
        .trim();
      docs.set(here.join("."), doc);
      // `stores.<name>` is a port (ports/), documented there: its members are no options.
      const port = here.length >= 2 && here[0] === "stores";
      if (
        !port &&
        member.type &&
        ts.isTypeReferenceNode(member.type) &&
        ts.isIdentifier(member.type.typeName)
      )
        visit(interfaces.get(member.type.typeName.text), here);
    }
  };
  visit(interfaces.get("AuthOptionFields"), []);
  return docs;
}
