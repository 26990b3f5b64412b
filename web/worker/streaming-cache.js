// The .wasm through the build's Cache Storage (the cache sw.js fills), streamed:
// the boot compiles it while it downloads, and the next visit reads it from disk.

// The response for href from the Cache Storage, put there first if it is not
// there yet, so that a second visit reads the .wasm from disk. (V8's
// compiled-code cache is not reused this way: a second visit's trace still
// compiles ~2,600 functions lazily. A plain fetch served by the service worker's
// route gets it from the third visit on, but loses the size check below.)
//
// The caller gets the bytes as they arrive, so that the .wasm is compiled while
// it downloads (WebAssembly.instantiateStreaming; reading it whole first cost a
// slow link the whole compile after the last byte). Only a file of the size the
// build recorded goes into the cache: a truncated download kept there would fail
// every later boot, Retry included. A truncated one is said at once through
// `onDamaged` (the boot's `failed`), before its stream ends in an error, so the
// learner reads "arrived damaged" rather than whatever the compiler makes of it.
//
// A copy found in the cache is used only if its bytes are the build's (their
// SHA-256 is build.json's `wasm_sha256`): one damaged on disk, or rewritten by a
// script that once ran in this origin, is dropped and downloaded again.
export async function throughCache(href, cacheName, realFetch, expectedSize, onDamaged, expectedSha = null) {
  const cache = await caches.open(cacheName);
  const hit = await cache.match(href);
  if (hit) {
    const body = await hit.arrayBuffer();
    if (expectedSha === null || (await sha256Hex(body)) === expectedSha) {
      return new Response(body, { status: hit.status, statusText: hit.statusText, headers: hit.headers });
    }
    await cache.delete(href);
  }
  const response = await realFetch(href);
  if (!response.ok || !response.body) return response;
  const name = new URL(href).pathname.split("/").pop();
  let seen = 0;
  const checked = response.body.pipeThrough(new TransformStream({
    transform(chunk, stream) {
      seen += chunk.byteLength;
      stream.enqueue(chunk);
    },
    flush(stream) {
      if (expectedSize == null || seen === expectedSize) return;
      const error = new DamagedFile(`${name} arrived damaged (${seen} of ${expectedSize} bytes); try again.`);
      onDamaged(error);
      stream.error(error);
    },
  }));
  const [toCaller, toCache] = checked.tee();
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  new Response(toCache, init).arrayBuffer()
    .then((body) => cache.put(href, new Response(body, init)))
    .catch(() => {}); // damaged (said above), or no room: the next visit downloads it again
  return new Response(toCaller, init);
}

class DamagedFile extends Error {}

async function sha256Hex(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buffer));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
