export { starlarkFunction } from "./function.js";

export { runStarlark } from "./kpt.js";
