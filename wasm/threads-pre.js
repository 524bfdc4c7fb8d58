// Prepended to the threaded module's factory (emcc --pre-js, CMakeLists.txt), before its runtime starts.
// The module makes Module.pthreadPoolSize Web Workers up front (-sPTHREAD_POOL_SIZE=Module.pthreadPoolSize),
// and waits for every one of them to load before it resolves: with none it would wait forever. So the pool
// holds at least one Worker, whatever the caller passed. wasm/engine.js sets it to the thread count - 1.
Module['pthreadPoolSize'] = Math.max(1, Math.floor(Number(Module['pthreadPoolSize'])) || 1);
