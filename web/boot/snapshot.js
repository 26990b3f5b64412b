// A memory snapshot of Python with the engine imported, made in the learner's
// own browser after the first visit's boot and kept in this build's Cache
// Storage, so that a later visit restores Python's memory instead of starting
// Python and importing ~200 modules again (CPU, not download: a second visit
// gets every file from the cache and was hardly faster than the first).
// Nothing of it is ever downloaded.
//
// Pyodide's snapshots are private API (loadPyodide's `_makeSnapshot` and
// `_loadSnapshot`, pyodide.makeMemorySnapshot()), so everything here is pinned
// and checked, and any doubt means the normal boot:
//
// * A snapshot is the whole WebAssembly heap plus a JSON list of the JavaScript
//   objects Python holds (only globalThis and Pyodide's own: nothing of ours is
//   handed to Python before it is made), stamped by Pyodide with its build id.
//   It is kept under a key naming the exact runtime folder (content-hashed),
//   the standard library and the engine wheel it was made with, in the cache of
//   this site build ("gradwalk-<site key>-<build id>", web/worker/caches.js),
//   which goes with its build: deleted when a later build of the same site starts
//   in this origin, or by sw.js when a later build activates.
// * Storing it may be refused (the origin's quota): it is then simply not kept,
//   and the next visit boots the fast way again (and tries again).
// * Python is started with a fixed environment (PYTHONHASHSEED=0: the same
//   hashes, so the same dict and set orders, whether restored or not); after a
//   restore `random` is reseeded, so visits do not share a random sequence.
// * It is made only while the heap is Pyodide's initial size: a restore copies
//   the heap into a fresh instance's memory, which has that size.
// * It is stored without its pages of zeros (packPages), with the SHA-256 of
//   what is stored; a snapshot that is missing, truncated,
//   corrupted, from another Pyodide build, or that fails or stalls to restore
//   is dropped (and made again by the normal boot that follows).
//
// The worker (web/worker/fast-boot.js) uses it like this:
//
//   const store = snapshotStore(build, stdLibURL, cacheName, SITE); // or null
//   const kept = await store.open();      // {bytes, verified} (promises), or null
//   const pyodide = await restorePython(loadPyodide, options, kept);  // throws on failure
//   // ... or boot normally with {...options, ...makeOptions()}, import the engine, then
//   const { bytes } = takeSnapshot(pyodide);         // before any request is answered
//   await store.save(bytes);                         // later, when the worker is idle
//
// tests/runtime/pyodide_parity.mjs imports this module under Node to prove that
// a restored engine answers byte for byte what a freshly started one answers.

// What Python is started with whenever a snapshot may be made or restored
// (fresh objects each time: loadPyodide writes defaults into them).
const pythonEnv = () => ({ PYTHONHASHSEED: "0" });
export const makeOptions = () => ({ _makeSnapshot: true, env: pythonEnv() });

// The initial memory of the pinned pyodide.asm.wasm (314.0.7): 480 pages of
// 64 KiB. A fresh instance has exactly this much; the parity test checks it.
export const INITIAL_HEAP_BYTES = 30 * 1024 * 1024;

// A restore takes ~0.2 s under Node here; one that takes this long has gone
// wrong (Pyodide waits forever on some failures instead of saying so).
const RESTORE_TIMEOUT_MS = 15000;

const SHA_HEADER = "x-gradwalk-sha256";

// Where a build keeps its snapshot, or null when this browser has no Cache
// Storage (then there is simply no snapshot).
export function snapshotStore(build, stdLibURL, cacheName, site) {
  if (!globalThis.caches) return null;
  const key = new URL("snapshots/python.bin", site);
  key.searchParams.set("pyodide", `${build.pyodide_version}:${build.pyodide_index}`);
  key.searchParams.set("stdlib", new URL(stdLibURL, site).pathname);
  key.searchParams.set("engine", build.engine_wheel_pyc);
  return new SnapshotStore(cacheName, key.href);
}

class SnapshotStore {
  constructor(cacheName, key) {
    this.cacheName = cacheName;
    this.key = key;
    this.dropped = null; // why the stored snapshot was thrown away, if it was
  }

  // The kept snapshot, or null when there is none: {bytes, verified}, two
  // promises, so that Pyodide starts loading while it is read and hashed.
  // Either rejects (with error.damaged set) if the stored bytes are not exactly
  // what was stored; the caller then drops it.
  async open() {
    const response = await this.match();
    return response && keptSnapshot(response.arrayBuffer(), response.headers.get(SHA_HEADER));
  }

  // The kept snapshot as it is stored (its bytes, checked against their SHA-256), or
  // null when there is none or it is damaged. The page reads it so for the code
  // worker, which has neither Cache Storage nor, in its opaque origin, crypto.subtle
  // (boot/code-sandbox.js); the worker unpacks it (unpackPages).
  async read() {
    const response = await this.match();
    if (!response) return null;
    const packed = await response.arrayBuffer();
    const sha = response.headers.get(SHA_HEADER);
    return sha && (await sha256Hex(new Uint8Array(packed))) === sha ? packed : null;
  }

  async match() {
    try {
      return (await (await caches.open(this.cacheName)).match(this.key)) ?? null;
    } catch {
      return null; // no Cache Storage after all (private mode, quota): no snapshot
    }
  }

  async save(bytes) {
    const packed = packPages(bytes);
    const headers = { "content-type": "application/octet-stream", [SHA_HEADER]: await sha256Hex(packed) };
    await (await caches.open(this.cacheName)).put(this.key, new Response(packed, { headers }));
  }

  async drop(why) {
    this.dropped = why;
    try {
      await (await caches.open(this.cacheName)).delete(this.key);
    } catch {
      // Nothing more to do: the next visit finds it damaged again and tries again.
    }
  }
}

// A stored snapshot's bytes as restorePython takes them, {bytes, verified}: two
// promises, the unpacked heap and the check of the stored bytes against their SHA-256.
// `packed` is the stored bytes (an ArrayBuffer) or a promise of them.
export function keptSnapshot(packed, sha) {
  const stored = Promise.resolve(packed).then((buffer) => new Uint8Array(buffer));
  const verified = stored.then(async (bytes) => {
    if (!sha || (await sha256Hex(bytes)) !== sha) throw damaged("its bytes do not match their SHA-256");
  });
  const bytes = stored.then(unpackPages);
  bytes.catch(() => {});
  verified.catch(() => {}); // the caller hears of both through restorePython
  return { bytes, verified };
}

// Python restored from a kept snapshot ({bytes, verified}: promises, as open()
// gives them), with the engine's files back in place and `random` reseeded.
// Pyodide needs the bytes before it instantiates the WebAssembly; the SHA-256 is
// checked meanwhile, and Python's memory is not restored before it has passed:
// loadPyodide runs its fsInit hook (awaited, as a run dependency) before it
// restores the heap. Throws if the check fails or the restore fails or stalls;
// the caller then drops the snapshot and boots normally (an abandoned instance
// is simply left for the garbage collector).
export async function restorePython(loadPyodide, options, { bytes, verified = Promise.resolve() },
  { siteWheel = null } = {}) {
  let timer;
  const stalled = new Promise((_, reject) => {
    const late = () => reject(new Error(`the restore took over ${RESTORE_TIMEOUT_MS / 1000} s`));
    timer = setTimeout(late, RESTORE_TIMEOUT_MS);
  });
  const never = new Promise(() => {});
  try {
    const pyodide = await Promise.race([
      loadPyodide({
        ...options,
        env: pythonEnv(),
        _loadSnapshot: bytes,
        // Damaged bytes: the instance waits forever, and the race below ends.
        fsInit: () => verified.catch(() => never),
      }),
      verified.then(() => never),
      stalled,
    ]);
    // The file system is JavaScript's, not part of the heap: the standard library
    // zip is written again by loadPyodide, the engine's files by the caller.
    if (siteWheel) pyodide.unpackArchive(siteWheel.bytes, "wheel", { extractDir: siteWheel.extractDir });
    pyodide.runPython(RESEED_AND_CHECK);
    return pyodide;
  } finally {
    clearTimeout(timer);
  }
}

// After a restore every visit would otherwise draw the same random numbers.
// The engine must be importable (it was imported before the snapshot was made).
const RESEED_AND_CHECK = `
import sys
if "random" in sys.modules:
    sys.modules["random"].seed()
import engine.api
`;

// A snapshot of this Python now (its whole heap: ~30 MB), or null with the reason
// when it cannot be made. Call it right after the engine is imported and before
// it answers anything, from JavaScript (no Python running), holding no
// JavaScript object in Python.
export function takeSnapshot(pyodide) {
  const heap = pyodide._module?.HEAP8?.length;
  if (!(heap <= INITIAL_HEAP_BYTES)) {
    return { bytes: null, why: `the heap has grown to ${heap} bytes; a restore would not fit` };
  }
  try {
    return { bytes: pyodide.makeMemorySnapshot(), why: null };
  } catch (error) {
    return { bytes: null, why: String(error?.message ?? error) };
  }
}

// Stored without its pages of zeros: 60% of a fresh heap is untouched, so the
// stored copy is ~12 MB instead of ~30, read from disk and hashed in less than
// half the time. Layout: "GWSNAP1\0", the snapshot's length (u32), a bitmap of
// its 4 KiB pages (1 = stored), then the stored pages in order (the last page
// may be short).
const PAGE = 4096;
const MAGIC = new TextEncoder().encode("GWSNAP1\0");

export function packPages(bytes) {
  const pages = Math.ceil(bytes.length / PAGE);
  const bitmap = new Uint8Array(Math.ceil(pages / 8));
  const kept = [];
  for (let p = 0; p < pages; p++) {
    const page = bytes.subarray(p * PAGE, (p + 1) * PAGE);
    if (!isZero(page)) {
      bitmap[p >> 3] |= 1 << (p & 7);
      kept.push(page);
    }
  }
  const head = MAGIC.length + 4;
  const out = new Uint8Array(head + bitmap.length + kept.reduce((n, page) => n + page.length, 0));
  out.set(MAGIC);
  new DataView(out.buffer).setUint32(MAGIC.length, bytes.length, true);
  out.set(bitmap, head);
  let at = head + bitmap.length;
  for (const page of kept) {
    out.set(page, at);
    at += page.length;
  }
  return out;
}

export function unpackPages(packed) {
  const head = MAGIC.length + 4;
  if (packed.length < head || MAGIC.some((b, i) => packed[i] !== b)) throw damaged("it is not a stored snapshot");
  const length = new DataView(packed.buffer, packed.byteOffset).getUint32(MAGIC.length, true);
  const pages = Math.ceil(length / PAGE);
  const bitmap = packed.subarray(head, head + Math.ceil(pages / 8));
  const bytes = new Uint8Array(length); // zeros, where nothing is stored
  let at = head + bitmap.length;
  for (let p = 0; p < pages; p++) {
    if (!(bitmap[p >> 3] & (1 << (p & 7)))) continue;
    const size = Math.min(PAGE, length - p * PAGE);
    if (at + size > packed.length) throw damaged("it is cut short");
    bytes.set(packed.subarray(at, at + size), p * PAGE);
    at += size;
  }
  if (at !== packed.length) throw damaged("it has bytes to spare");
  return bytes;
}

function isZero(page) {
  // Whole 4 KiB pages are compared 32 bits at a time (the snapshot's buffer starts aligned).
  const words = page.length === PAGE && page.byteOffset % 4 === 0
    ? new Uint32Array(page.buffer, page.byteOffset, PAGE / 4) : page;
  for (let i = 0; i < words.length; i++) if (words[i] !== 0) return false;
  return true;
}

function damaged(why) {
  return Object.assign(new Error(`the stored snapshot is damaged: ${why}`), { damaged: true });
}

async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
