// The code worker's memory limit: a ceiling on Python's WebAssembly heap.
//
// Python's allocator asks the runtime for more memory through one import of the
// WebAssembly module, emscripten_resize_heap. Before Pyodide is loaded,
// limitHeap() wraps WebAssembly.instantiate and instantiateStreaming so that this
// import refuses any heap larger than the limit: the allocation then fails inside
// Python, which raises MemoryError (catchable, but the heap stays under the
// ceiling). An instance's imports are fixed when it is made, so nothing running in
// Python can lift the ceiling afterwards.
//
// The heap never shrinks, so the worker also reports after every run how big the
// heap is and whether a growth was refused (heapUse()); the page replaces a worker
// that hit the limit. What heapUse() reads is kept here as it was before any
// learner code ran (the built-in functions it calls included), so code that
// rewrites JavaScript's built-ins from Python cannot change what it reports.

const apply = Reflect.apply;
const bufferOf = Object.getOwnPropertyDescriptor(WebAssembly.Memory.prototype, "buffer").get;
const byteLengthOf = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;

export function limitHeap(limitBytes) {
  const state = { memory: null, refused: false, sealed: false };
  const cap = (imports) => {
    const grow = imports?.env?.emscripten_resize_heap;
    if (typeof grow !== "function") return imports;
    const env = {
      ...imports.env,
      emscripten_resize_heap(requested) {
        if (requested >>> 0 > limitBytes) {
          state.refused = true;
          return 0; // the allocation fails: MemoryError in Python
        }
        return grow(requested);
      },
    };
    return { ...imports, env };
  };
  const keep = (result) => {
    const instance = result instanceof WebAssembly.Instance ? result : result?.instance;
    const memory = instance?.exports?.memory;
    // Python's is the last one made before the boot ends (a snapshot that failed to
    // restore leaves an instance behind); none made after it, by a learner's code, counts.
    if (!state.sealed && memory instanceof WebAssembly.Memory) state.memory = memory;
    return result;
  };
  const { instantiate, instantiateStreaming } = WebAssembly;
  WebAssembly.instantiate = (source, imports) => instantiate(source, cap(imports)).then(keep);
  WebAssembly.instantiateStreaming = (source, imports) => instantiateStreaming(source, cap(imports)).then(keep);

  // {heap, refused}: the heap's size in bytes now, and whether a growth past the
  // limit was refused since the last call. heapUse.seal(), once Python has booted:
  // the heap it reads is Python's from then on.
  const heapUse = () => {
    const heap = state.memory ? apply(byteLengthOf, apply(bufferOf, state.memory, []), []) : 0;
    const refused = state.refused;
    state.refused = false;
    return { heap, refused };
  };
  heapUse.seal = () => {
    state.sealed = true;
  };
  return heapUse;
}
