//! Copy kernels: the primitives the decode loops are built from. They depend
//! on nothing else in the crate.
