// The request socket as the evaluator's kernel (`KernelQuestions`).
//
// Declared here, beside the evaluator that calls it, not beside the socket
// in ReachabilityKernel: a conformance's witness thunks live in the module
// that declares it, and one declared across the module boundary would put a
// call through a thunk the optimizer cannot inline in front of every route
// lookup and link question (`make bench-instructions`: about 50 instructions
// an evaluation).
extension RouteSocket: KernelQuestions {}
