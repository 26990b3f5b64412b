// Whether the worker is busy answering the page: the memory snapshot is stored
// only once it is not (fast-boot.js), so that the first answers never wait for it.

let lastRequestAt = 0; // performance.now() of the last request handled

export function noteRequest() {
  lastRequestAt = performance.now();
}

// Resolves once no request has been handled for `quietMs` (the page's first
// requests after ready come within a few hundred ms of each other).
export function whenIdle(quietMs = 1000) {
  return new Promise((resolve) => {
    const check = () => {
      const quiet = performance.now() - lastRequestAt;
      if (quiet >= quietMs) resolve();
      else setTimeout(check, quietMs - quiet);
    };
    setTimeout(check, quietMs);
  });
}
