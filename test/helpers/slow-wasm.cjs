/**
 * Preloaded into the local model's worker thread (`--require`): every WebAssembly module
 * compiles two seconds late, as on a machine busy enough that the model's weights are read
 * before tfjs's WebAssembly backend is up.
 */
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = (...args) =>
  new Promise((resolve) => setTimeout(resolve, 2000)).then(() => instantiate(...args));
