//! The firmware image of the NIC's RISC-V core (`riscv32im-unknown-none-elf`, feature `image`): start-up code
//! (stack pointer, zeroed `.bss`), then [`Firmware::run`] on the memory-mapped bus. Host builds of this binary
//! only explain where it runs.

#![cfg_attr(target_os = "none", no_std)]
#![cfg_attr(target_os = "none", no_main)]

#[cfg(target_os = "none")]
mod image {
    use metaroce_firmware::mmio::Mmio;
    use metaroce_firmware::Firmware;

    // Reset: the stack at the top of RAM, `.bss` zeroed word by word, then `main`. The processor starts at
    // address 0, where the link script places `.text.start`.
    core::arch::global_asm!(
        ".section .text.start, \"ax\"",
        ".globl _start",
        "_start:",
        "  la sp, _stack_top",
        "  la t0, _sbss",
        "  la t1, _ebss",
        "1:",
        "  bgeu t0, t1, 2f",
        "  sw zero, 0(t0)",
        "  addi t0, t0, 4",
        "  j 1b",
        "2:",
        "  call main",
        "3:",
        "  j 3b",
    );

    /// The firmware's state: in `.bss` (zeroed by `_start`), too large for the stack.
    static mut FIRMWARE: Firmware = Firmware::new();

    #[no_mangle]
    extern "C" fn main() -> ! {
        // SAFETY: `main` runs once, on the only hart, with no interrupts enabled, so this is the only reference
        // to `FIRMWARE` that ever exists.
        let fw = unsafe { &mut *core::ptr::addr_of_mut!(FIRMWARE) };
        fw.run(&mut Mmio::new())
    }

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        // Nothing in the firmware panics by design; if it ever did, the processor stops here and the host sees
        // the mailbox stay busy (its command times out).
        loop {
            core::hint::spin_loop();
        }
    }
}

#[cfg(not(target_os = "none"))]
fn main() {
    eprintln!(
        "metaroce-fw is the NIC's firmware image: build it with \
         `cargo xtask firmware` (`cargo build -p metaroce-firmware --features image \
         --target riscv32im-unknown-none-elf --profile firmware`)"
    );
    std::process::exit(2);
}
