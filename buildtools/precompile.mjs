// Compile Python sources to bytecode with the pinned Pyodide's own Python, so
// the .pyc files carry exactly the magic number the browser's Python expects.
//
//   node buildtools/precompile.mjs <jobs.json>
//
// jobs.json: {"stdlib": "<zip to boot with, optional>",
//             "jobs": [{"in": "<zip>", "out": "<zip>", "prefix": "<dfile prefix>"}, ...]}
//
// For every job, each `name.py` in the input zip is compiled (filename shown in
// tracebacks: prefix + name.py) and written to the output zip as `name.pyc`: an
// unchecked-hash pyc (PEP 552), so it never looks for its source and has no
// timestamp (the same sources always give the same bytes). Entries that are not
// .py are not copied; buildtools/precompile.py assembles the final archives.
// A file that does not compile is reported in the result and left as source.
// The result (magic number, cache tag, failures) goes to stdout as one JSON line.

import { readFile, writeFile } from "node:fs/promises";
import { bootPyodide } from "./pyodide_node.mjs";

const [jobsPath] = process.argv.slice(2);
if (!jobsPath) {
  console.error("usage: node buildtools/precompile.mjs <jobs.json>");
  process.exit(2);
}
const spec = JSON.parse(await readFile(jobsPath, "utf8"));
// A stdlib compiled earlier boots faster; the result is the same either way.
const pyodide = await bootPyodide({ stdlib: spec.stdlib });

const COMPILE = `
import importlib.util, marshal, zipfile

def compile_zip(src_path, out_path, prefix):
    failed = []
    with zipfile.ZipFile(src_path) as src, zipfile.ZipFile(out_path, "w") as out:
        for info in src.infolist():
            if not info.filename.endswith(".py"):
                continue
            source = src.read(info)
            try:
                code = compile(source, prefix + info.filename, "exec", dont_inherit=True)
            except SyntaxError as error:
                failed.append(f"{info.filename}: {error}")
                continue
            pyc = bytearray(importlib.util.MAGIC_NUMBER)
            pyc += (0b01).to_bytes(4, "little")  # hash-based, not checked against the source
            pyc += importlib.util.source_hash(source)
            pyc += marshal.dumps(code)
            entry = zipfile.ZipInfo(info.filename + "c", date_time=(1980, 1, 1, 0, 0, 0))
            out.writestr(entry, bytes(pyc), zipfile.ZIP_STORED)
    return failed
`;
pyodide.runPython(COMPILE);
const compileZip = pyodide.globals.get("compile_zip");

const result = { jobs: [] };
for (const [i, job] of spec.jobs.entries()) {
  pyodide.FS.writeFile(`/tmp/in${i}.zip`, await readFile(job.in));
  const failed = compileZip(`/tmp/in${i}.zip`, `/tmp/out${i}.zip`, job.prefix).toJs();
  await writeFile(job.out, pyodide.FS.readFile(`/tmp/out${i}.zip`));
  result.jobs.push({ out: job.out, failed });
}
result.magic = pyodide.runPython("import importlib.util; importlib.util.MAGIC_NUMBER.hex()");
result.cache_tag = pyodide.runPython("import sys; sys.implementation.cache_tag");
result.version = pyodide.runPython("import sys; '%d.%d' % sys.version_info[:2]");
process.stdout.write(JSON.stringify(result) + "\n");
process.exit(0);
