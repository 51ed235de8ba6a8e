// A worker thread that fails while loading its modules, before it says it is ready: a broken build, a
// module that throws at load.
throw new Error("this worker cannot load");
