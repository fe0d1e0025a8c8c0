//! The only unsafe code of the co-simulation: loading a model's shared library and calling its C ABI
//! ([`super::shim`]). Everything else uses the safe [`Instance`].
#![allow(unsafe_code)]

use libloading::{Library, Symbol};
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;
use std::sync::Arc;

type NewFn = unsafe extern "C" fn() -> *mut c_void;
type HandleFn = unsafe extern "C" fn(*mut c_void);
type CyclesFn = unsafe extern "C" fn(*mut c_void, u64);
type SetFn = unsafe extern "C" fn(*mut c_void, u32, *const u32);
type GetFn = unsafe extern "C" fn(*mut c_void, u32, *mut u32);
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;

/// A loaded model library: its entry points, resolved once.
pub struct ModelLib {
    new: NewFn,
    delete: HandleFn,
    eval: HandleFn,
    cycles: CyclesFn,
    set: SetFn,
    get: GetFn,
    trace_open: TraceOpenFn,
    trace_close: HandleFn,
    // Last: the function pointers above point into this library, which must outlive them.
    _lib: Library,
}

fn sym<T: Copy>(lib: &Library, name: &[u8]) -> Result<T, String> {
    // SAFETY: the symbol is one of the shim's `extern "C"` functions, whose signature the shim module
    // generates to match the type `T` each call site names; the pointer is only used while `lib` is alive
    // (both live in the same `ModelLib`).
    unsafe {
        let s: Symbol<T> = lib
            .get(name)
            .map_err(|e| format!("{}: {e}", String::from_utf8_lossy(name)))?;
        Ok(*s)
    }
}

impl ModelLib {
    /// Loads a library built by [`super::build::build`].
    pub fn load(path: &Path) -> Result<Arc<ModelLib>, String> {
        // SAFETY: the library is one the co-simulation built from the generated shim; its initialisers are
        // Verilator's runtime's, which have no preconditions.
        let lib = unsafe { Library::new(path) }.map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Arc::new(ModelLib {
            new: sym(&lib, b"cosim_new")?,
            delete: sym(&lib, b"cosim_delete")?,
            eval: sym(&lib, b"cosim_eval")?,
            cycles: sym(&lib, b"cosim_cycles")?,
            set: sym(&lib, b"cosim_set")?,
            get: sym(&lib, b"cosim_get")?,
            trace_open: sym(&lib, b"cosim_trace_open")?,
            trace_close: sym(&lib, b"cosim_trace_close")?,
            _lib: lib,
        }))
    }
}

/// One instance of a model (its own Verilator context), owned: dropped with `cosim_delete`.
pub struct Instance {
    lib: Arc<ModelLib>,
    h: *mut c_void,
}

impl Instance {
    /// A new instance.
    pub fn new(lib: Arc<ModelLib>) -> Instance {
        // SAFETY: `cosim_new` takes no arguments and returns a fresh heap object owned by this instance.
        let h = unsafe { (lib.new)() };
        Instance { lib, h }
    }

    /// Settles combinational logic.
    pub fn eval(&mut self) {
        // SAFETY: `h` is this instance's live handle.
        unsafe { (self.lib.eval)(self.h) }
    }

    /// Runs `n` clock cycles.
    pub fn cycles(&mut self, n: u64) {
        // SAFETY: `h` is this instance's live handle.
        unsafe { (self.lib.cycles)(self.h, n) }
    }

    /// Sets input port `id`; `words` holds at least the port's 32-bit words (the caller checks).
    pub fn set(&mut self, id: u32, words: &[u32]) {
        // SAFETY: `h` is live; the shim reads exactly `ceil(width / 32)` words of port `id`, and the safe
        // caller ([`super::model::Model`]) passes a slice of at least that length for a port of that id.
        unsafe { (self.lib.set)(self.h, id, words.as_ptr()) }
    }

    /// Reads port `id` into `words` (at least the port's 32-bit words, the caller checks).
    pub fn get(&mut self, id: u32, words: &mut [u32]) {
        // SAFETY: as for `set`: the shim writes exactly `ceil(width / 32)` words, which `words` holds.
        unsafe { (self.lib.get)(self.h, id, words.as_mut_ptr()) }
    }

    /// Starts a VCD at `path`: 0, or 1 (one is already open), 2 (the file could not be opened), 3 (the model
    /// has no waveform support), 4 (the path has a NUL byte).
    pub fn trace_open(&mut self, path: &Path) -> i32 {
        let Ok(c) = CString::new(path.to_string_lossy().as_bytes()) else {
            return 4;
        };
        // SAFETY: `h` is live and `c` is a NUL-terminated string that outlives the call.
        unsafe { (self.lib.trace_open)(self.h, c.as_ptr()) }
    }

    /// Closes the VCD, if any.
    pub fn trace_close(&mut self) {
        // SAFETY: `h` is this instance's live handle.
        unsafe { (self.lib.trace_close)(self.h) }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: `h` came from `cosim_new` of the same library and is deleted exactly once, here.
        unsafe { (self.lib.delete)(self.h) }
    }
}
