//! Cache hints for the hot paths: a run spends much of its time waiting for packet records and
//! event nodes that were touched long ago; knowing the next event, it can ask for them early.

/// Asks the CPU to bring `x`'s cache line in, without waiting for it: a plain load would stall
/// the event in hand until the line came. A no-op off x86-64.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing into the program and cannot fault,
    // and the address comes from a live reference.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(x as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
