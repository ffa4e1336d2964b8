//! The adaptive chooser, codec-neutral: which of several interchangeable
//! decode routines ("arms") is fastest for one stream's data on this CPU.
//!
//! * [`bandit`]: the Thompson sampler over arm costs.
//! * [`policy`]: the per-stream policy built on it: which arm decodes each
//!   block, which blocks are timed (and how small ones are batched), the
//!   warm-up after a switch, convergence, and the process prior with its
//!   per-codec [`Votes`].
//!
//! A codec owns its table of arms (an id and a decode function pointer per
//! arm) and one static [`Votes`]; it calls the policy around each block's
//! decode. Nothing here knows any format. Tuning internals, not a stable
//! API: hidden from the documentation, and may change in any release.

pub mod bandit;
pub mod policy;

pub use policy::{ArmReport, MIN_TIMED_BYTES, PRIOR_TRUST_BYTES, Policy, Pull, Votes};
