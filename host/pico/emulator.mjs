// An emulated Raspberry Pi Pico wired like the board: MicroPython's real RPI_PICO firmware on
// rp2040js, with the board's hardware modelled around it.
//
//   node emulator.mjs --bootrom ROM.bin --flash FLASH.bin --model MODEL.json [--realtime]
//
// FLASH.bin is the Pico's 2 MB flash chip: read at power-on, every erase and program written
// through to it, so it survives a power cut and a restart of this process. host/pico/board.py
// makes it from a UF2 (as the boot ROM does when a UF2 is dragged onto the Pico) and drives this
// process over stdin/stdout with frames: one type byte, a u32 little-endian length, the payload.
//   'S'  USB serial bytes (to the Pico on stdin, from it on stdout)
//   'C'  one JSON object: a command on stdin, an event or a reply on stdout
// What is modelled (MODEL.json names the pins, from the board's config):
// - 74HC165 chain on an SPI block: SH/LD low latches every input; the bytes clocked out are each
//   chip's 8 inputs (chip nearest the MCU first, input H first), the last chip's D0 tied low (a
//   marker) and its SER pull-up after the chain, at the SPI's own bit rate; a bit dropped, doubled
//   or the chain cut after a module on command (`chain`).
// - buttons and the safe-mode pin: inputs driven high (rp2040js does not model pull-ups) and low
//   while pressed.
// - WS2812 chain: decoded from the data pin's edges (a high pulse over 600 ns is a 1), a frame
//   ends with the line low for 50 us (the chips latch). The pin may be bit-banged by the CPU or
//   driven by a PIO state machine (fed by DMA).
// - PIO in emulated time: rp2040js steps its state machines from a wall-clock timer, ignoring
//   clock dividers and delays; here they run beside the CPU, each instruction taking its
//   (1 + delay) cycles at its clock divider, so what they put on a pin has the real timing.
// - the flash chip: the boot ROM's flash_range_erase / flash_range_program are intercepted (no
//   flash chip sits behind rp2040js's SSI) and take the datasheet's time with the CPU stalled,
//   as on a Pico (the SDK runs them from RAM with interrupts off).
// - power: a cut stops the CPU at an instruction, or inside an erase or program (part of it
//   done), and power-on boots again from the flash file; machine.reset() (the watchdog) reboots.
// - USB: the host's reads of the OUT endpoint are held until the host has bytes to send, as a
//   real host does (rp2040js answers each at once with an empty packet: an interrupt storm).
// Emulated time runs no faster than wall time with --realtime (a host's timeouts then mean what
// they say), and as fast as the CPU allows without.
import fs from 'fs';
import { RP2040, USBCDC } from 'rp2040js';

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) {
    const next = process.argv[i + 1];
    if (next === undefined || next.startsWith('--')) args[a.slice(2)] = true;
    else args[a.slice(2)] = process.argv[++i];
  }
}
const model = JSON.parse(fs.readFileSync(args.model, 'utf8'));
const bootromBytes = fs.readFileSync(args.bootrom);
const bootrom = new Uint32Array(bootromBytes.buffer, bootromBytes.byteOffset, bootromBytes.length >> 2);
const FLASH_SIZE = 2 * 1024 * 1024;
const flashFd = fs.openSync(args.flash, 'r+');
const CYCLE_NS = 8; // 125 MHz
const eraseNsPerSector = Math.round(Number(model.erase_ms_per_sector ?? 45) * 1e6);
const programNsPerPage = Math.round(Number(model.program_ms_per_page ?? 0.4) * 1e6);
let realtime = !!args.realtime;

// --- framing to and from host/pico/board.py --------------------------------------------------------
function send(type, payload) {
  const head = Buffer.alloc(5);
  head[0] = type.charCodeAt(0);
  head.writeUInt32LE(payload.length, 1);
  process.stdout.write(Buffer.concat([head, payload]));
}
function emit(obj) {
  send('C', Buffer.from(JSON.stringify(obj)));
}

// --- the machine ------------------------------------------------------------------------------------
let mcu = null;
let cdc = null;
let powered = false;
let instructions = 0; // executed since this process started
let bootCount = 0;
const serialIn = []; // bytes the host sent, waiting for the device to read its OUT endpoint
let heldRead = null; // [endpoint, size] of an OUT read held until the host sends something
const inputs = new Uint8Array(model.chips); // closed bits, chain order (1 = reed closed)
const pinLevels = new Map(); // gpio -> level driven from outside (buttons, safe-mode pin)
let cut = null; // the planned power cut
const waits = []; // [emulated ns, reply id]
const taps = new Map(); // reply id -> gpio of a button held down for a tap, until its alarm
let clockOffsetNs = 0; // emulated time across reboots: ns before this machine's clock started
const stats = { erases: 0, programs: 0, erase_ns: 0, program_ns: 0, frames: 0 };
let romErase = -1;
let romProgram = -1;
let pioMachines = []; // enabled PIO state machines: [pio, sm]
let pioNowNs = -1; // while a state machine steps: the emulated time of its instruction
let pioBusy = false; // some enabled machine is not stalled on its FIFO (it must be stepped)
let pioNextNs = 0; // when the next instruction of a busy machine is due
const WAIT_PIN = 1; // rp2040js's WaitType.Pin: the one stall that no FIFO or IRQ write ends

function nowNs() {
  return clockOffsetNs + (mcu ? mcu.clock.nanos : 0);
}

function romFunction(code) {
  const view = new DataView(bootrom.buffer, bootrom.byteOffset, bootrom.byteLength);
  let p = view.getUint16(0x14, true); // the ROM's function table (RP2040 datasheet, 2.8.3)
  for (;;) {
    const c = view.getUint16(p, true);
    if (!c) return -1;
    if (c === code) return view.getUint16(p + 2, true) & ~1;
    p += 4;
  }
}

function twoChars(s) {
  return s.charCodeAt(0) | (s.charCodeAt(1) << 8);
}

function writeThrough(offset, length) {
  fs.writeSync(flashFd, mcu.flash, offset, length, offset);
}

function returnFromRomCall() {
  mcu.core.PC = mcu.core.LR & ~1;
}

// A flash operation, whole or (for a cut inside it) the first `fraction` of it. Returns the ns
// the chip takes.
function flashErase(offset, count, fraction = 1) {
  const start = offset & ~0xfff;
  const end = Math.min(FLASH_SIZE, (offset + count + 0xfff) & ~0xfff);
  const done = start + Math.floor((end - start) * fraction);
  mcu.flash.fill(0xff, start, done);
  writeThrough(start, end - start);
  return ((end - start) >> 12) * eraseNsPerSector;
}

function flashProgram(offset, data, count, fraction = 1) {
  const n = Math.floor(count * fraction);
  for (let i = 0; i < n; i++) {
    mcu.flash[offset + i] &= mcu.readUint8(data + i);
  }
  if (count) writeThrough(offset, Math.min(count, FLASH_SIZE - offset));
  return Math.ceil(count / 256) * programNsPerPage;
}

// Called when the CPU reaches a ROM flash routine: do it (or the part before a planned cut).
function flashHook(isErase) {
  const r = mcu.core.registers;
  const kind = isErase ? 'erase' : 'program';
  if (cut && cut.inFlash !== undefined && (cut.inFlash === 'any' || cut.inFlash === kind)) {
    if (cut.skipOps > 0) {
      cut.skipOps--;
    } else {
      if (isErase) flashErase(r[0], r[1], cut.fraction);
      else flashProgram(r[0], r[1], r[2], cut.fraction);
      powerOff({ where: kind, fraction: cut.fraction, offset: r[0] });
      return;
    }
  }
  let ns;
  if (isErase) {
    ns = flashErase(r[0], r[1]);
    stats.erases++;
    stats.erase_ns += ns;
  } else {
    ns = flashProgram(r[0], r[1], r[2]);
    stats.programs++;
    stats.program_ns += ns;
  }
  returnFromRomCall();
  advance(ns); // the CPU waits for the chip
  if (cut && cut.afterFlash) {
    if (cut.skipOps > 0) cut.skipOps--;
    else powerOff({ where: 'after-' + kind, offset: r[0] });
  }
}

// --- modelled hardware ------------------------------------------------------------------------------
// The 74HC165 chain as the bits it clocks out: each chip's 8 inputs (H first, A = D0 last), the
// last chip's D0 wired to GND (the marker the firmware checks), then the last chip's SER, held high
// by its resistor network. A fault between module k and module k+1 (the `chain` command) drops the
// first bit of module k+1 (an edge not taken), doubles it (an edge taken twice), or cuts the chain
// there (module k's SER pull-up from then on).
let chainFault = null; // {after, kind: 'drop' | 'double' | 'cut'}
const TAIL_BYTES = 4;

function chainBits() {
  const n = (model.chips + TAIL_BYTES) * 8;
  let bits = [];
  for (let k = 0; k < model.chips; k++) {
    let raw = model.active_low ? ~inputs[k] & 0xff : inputs[k];
    if (k === model.chips - 1) raw &= 0xfe; // the marker
    for (let i = 7; i >= 0; i--) bits.push((raw >> i) & 1);
  }
  while (bits.length < n) bits.push(1);
  if (chainFault) {
    const at = 8 * (chainFault.after + 1);
    if (chainFault.kind === 'drop') bits.splice(at, 1);
    else if (chainFault.kind === 'double') bits.splice(at, 0, bits[at]);
    else if (chainFault.kind === 'cut') bits = bits.slice(0, at).concat(new Array(n - at).fill(1));
    while (bits.length < n) bits.push(1);
  }
  const bytes = new Uint8Array(model.chips + TAIL_BYTES);
  for (let j = 0; j < bytes.length; j++) {
    let v = 0;
    for (let i = 0; i < 8; i++) v = (v << 1) | bits[8 * j + i];
    bytes[j] = v;
  }
  return bytes;
}

function attachHardware() {
  // 74HC165 chain: SH/LD low latches every input; each byte clocked out is the next 8 bits
  const spi = mcu.spi[model.spi];
  let latched = chainBits();
  let shiftIndex = 0;
  const load = mcu.gpio[model.load];
  load.addListener((state) => {
    if (!load.outputValue) {
      latched = chainBits();
      shiftIndex = 0;
    }
  });
  let pending = 0;
  const spiAlarm = mcu.clock.createAlarm(() => spi.completeTransmit(pending));
  spi.onTransmit = () => {
    const k = shiftIndex++;
    pending = k < latched.length ? latched[k] : 0xff;
    const hz = spi.clockFrequency || 1e6;
    spiAlarm.schedule(Math.max(1, Math.round((spi.dataBits * 1e9) / hz)));
  };
  // buttons and the safe-mode pin: driven high unless pressed
  for (const gpio of model.input_pins) {
    mcu.gpio[gpio].setInputValue(pinLevels.has(gpio) ? !!pinLevels.get(gpio) : true);
  }
  // WS2812 data line
  const led = mcu.gpio[model.led_pin];
  const bytes = new Uint8Array(3 * model.led_count + 64);
  let nbits = 0;
  let rise = -1;
  let lastLevel = false;
  const latchAlarm = mcu.clock.createAlarm(() => {
    if (nbits >= 8) {
      const n = nbits >> 3;
      stats.frames++;
      emit({ ev: 'frame', t: nowNs() / 1e6, n: stats.frames, wire: Buffer.from(bytes.subarray(0, n)).toString('hex') });
    }
    nbits = 0;
    bytes.fill(0);
  });
  led.addListener(() => {
    const level = led.outputValue;
    if (level === lastLevel) return;
    lastLevel = level;
    const t = pioNowNs >= 0 ? pioNowNs : mcu.clock.nanos;
    if (level) {
      rise = t;
    } else if (rise >= 0) {
      const high = t - rise;
      if (nbits < 8 * bytes.length) {
        if (high > 600) bytes[nbits >> 3] |= 0x80 >> (nbits & 7);
        nbits++;
      }
      latchAlarm.schedule(50000);
    }
  });
}

// --- PIO beside the CPU, in emulated time ----------------------------------------------------------
function attachPio() {
  pioMachines = [];
  pioBusy = false;
  for (const pio of mcu.pio) {
    pio.run = () => {}; // no wall-clock stepping: runPio() steps the enabled machines
    const write = pio.writeUint32.bind(pio);
    pio.writeUint32 = (offset, value) => {
      write(offset, value);
      if (offset === 0) { // CTRL: machines enabled or disabled
        pioMachines = [];
        pioBusy = true;
        pioNextNs = 0;
        for (const p of mcu.pio) {
          for (const sm of p.machines) {
            if (sm.enabled) {
              if (sm.yardT === undefined) sm.yardT = mcu.clock.nanos;
              pioMachines.push([p, sm]);
            } else {
              sm.yardT = undefined;
            }
          }
        }
      }
    };
    for (const sm of pio.machines) {
      const push = sm.writeFIFO.bind(sm);
      sm.writeFIFO = (value) => { // a stalled machine goes on from the moment its data comes
        if (sm.waiting && sm.yardT !== undefined) sm.yardT = Math.max(sm.yardT, mcu.clock.nanos);
        push(value);
        pioBusy = pioMachines.length > 0;
        pioNextNs = 0;
      };
    }
  }
}

// The clock moves on by ns (the CPU stalled by the flash chip): state machines at work, or DMA
// feeding them, run beside it in steps of 1 us, as they do on a Pico while its CPU waits.
function advance(ns) {
  while (ns > 0 && (pioBusy || (pioMachines.length && mcu.dma.channels.some((c) => c.active)))) {
    const step = Math.min(ns, 1000);
    mcu.clock.tick(step);
    runPio(mcu.clock.nanos);
    ns -= step;
  }
  if (ns > 0) {
    mcu.clock.tick(ns);
    if (pioBusy) runPio(mcu.clock.nanos);
  }
}

// Each machine runs up to `upTo` (ns), an instruction every (1 + delay) cycles of its divided clock.
function runPio(upTo) {
  let busy = false;
  let next = Infinity;
  for (const [pio, sm] of pioMachines) {
    let t = sm.yardT;
    if (sm.waiting) {
      if (sm.waitType === WAIT_PIN) sm.checkWait(); // a FIFO's or an IRQ's stall ends by their writes
      if (sm.waiting) {
        sm.yardT = upTo; // stalled: time passes
        if (sm.waitType === WAIT_PIN) { // polled: at the pace of the CPU's instructions
          busy = true;
          next = upTo;
        }
        continue;
      }
    }
    const div = ((sm.clockDivInt || 65536) + sm.clockDivFrac / 256) * CYCLE_NS;
    while (t < upTo) {
      pioNowNs = t;
      const before = sm.cycles;
      sm.step();
      pio.checkChangedPins();
      if (sm.waiting && sm.cycles === before) {
        t = upTo;
        break;
      }
      t += Math.max(1, sm.cycles - before) * div;
    }
    pioNowNs = -1;
    sm.yardT = t;
    if (!sm.waiting || sm.waitType === WAIT_PIN) {
      busy = true;
      next = Math.min(next, t);
    }
  }
  pioBusy = busy;
  pioNextNs = busy ? next : 0;
}

function attachUsb() {
  cdc = new USBCDC(mcu.usbCtrl);
  const usb = mcu.usbCtrl;
  const fromDevice = usb.onEndpointWrite;
  usb.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) return;
    if (!serialIn.length) {
      heldRead = [endpoint, size];
      return;
    }
    const n = Math.min(size, serialIn.length);
    usb.endpointReadDone(endpoint, Uint8Array.from(serialIn.splice(0, n)));
  };
  usb.onEndpointWrite = fromDevice;
  cdc.onSerialData = (data) => send('S', Buffer.from(data));
}

function serialFromHost(buf) {
  for (const b of buf) serialIn.push(b);
  if (heldRead && powered) {
    const [endpoint, size] = heldRead;
    heldRead = null;
    mcu.usbCtrl.onEndpointRead(endpoint, size);
  }
}

function powerOn() {
  if (mcu) clockOffsetNs += mcu.clock.nanos;
  mcu = new RP2040();
  mcu.logger = { debug() {}, info() {}, warn() {}, error(c, m) { process.stderr.write(`${c}: ${m}\n`); } };
  mcu.loadBootrom(bootrom); // resets the chip and fills its flash with 0xFF
  fs.readSync(flashFd, mcu.flash, 0, FLASH_SIZE, 0);
  romErase = romFunction(twoChars('RE'));
  romProgram = romFunction(twoChars('RP'));
  heldRead = null;
  serialIn.length = 0; // bytes in flight die with the board
  attachUsb();
  attachHardware();
  attachPio();
  const watchdog = mcu.peripherals[0x40058];
  watchdog.onWatchdogTrigger = () => {
    emit({ ev: 'reset', t: nowNs() / 1e6, why: 'watchdog' });
    powerOn();
  };
  mcu.core.PC = 0x10000000; // boot stage 2 at the start of flash, as the boot ROM would jump to it
  powered = true;
  bootCount++;
  emit({ ev: 'on', t: nowNs() / 1e6, boots: bootCount });
}

function powerOff(info) {
  powered = false;
  cut = null;
  fs.fsyncSync(flashFd);
  emit(Object.assign({ ev: 'off', t: nowNs() / 1e6, instructions }, info));
  // the chip's time stands still while it is off: the hands' waits and taps end now (the host
  // would otherwise wait for a clock that only the next power-on starts again)
  for (const [, id] of waits) emit({ id, t: nowNs() / 1e6, off: true });
  waits.length = 0;
  for (const [id, gpio] of taps) {
    pinLevels.set(gpio, 1);
    emit({ id, t: nowNs() / 1e6, off: true });
  }
  taps.clear();
}

// --- the run loop -----------------------------------------------------------------------------------
let wallBase = performance.now();
let emuBase = 0;
const MAX_LAG_NS = 50e6;

function resetPace() {
  wallBase = performance.now();
  emuBase = nowNs();
}

function checkWaits() {
  const t = nowNs();
  for (let i = waits.length - 1; i >= 0; i--) {
    if (waits[i][0] <= t) {
      emit({ id: waits[i][1], t: t / 1e6 });
      waits.splice(i, 1);
    }
  }
}

function runSlice() {
  const sliceEnd = performance.now() + 15;
  let target = Infinity;
  if (realtime) {
    target = emuBase + (performance.now() - wallBase) * 1e6;
    if (nowNs() < target - MAX_LAG_NS) { // the CPU is slower than real time: never catch up later
      emuBase = target - MAX_LAG_NS;
    }
  }
  while (powered) {
    const core = mcu.core;
    for (let i = 0; i < 2000 && powered; i++) {
      if (core.waiting) {
        let dt = mcu.clock.nanosToNextAlarm;
        if (dt <= 0) dt = 1e6;
        if (pioBusy) dt = Math.min(dt, 1000); // a state machine at work: 1 us steps
        if (realtime && nowNs() + dt > target) {
          dt = Math.max(0, target - nowNs());
          mcu.clock.tick(dt);
          if (pioBusy) runPio(mcu.clock.nanos);
          i = 1e9; // wait for the wall clock
          break;
        }
        mcu.clock.tick(dt);
        if (pioBusy) runPio(mcu.clock.nanos);
      } else {
        const pc = core.PC;
        if (pc === romErase || pc === romProgram) {
          flashHook(pc === romErase);
          continue;
        }
        const cycles = core.executeInstruction();
        instructions++;
        mcu.clock.tick(cycles * CYCLE_NS);
        if (pioBusy && mcu.clock.nanos >= pioNextNs) runPio(mcu.clock.nanos);
        if (cut && cut.atInstruction !== undefined && instructions >= cut.atInstruction) {
          powerOff({ where: 'instruction', pc });
        }
      }
    }
    checkWaits();
    if (realtime && nowNs() >= target) break;
    if (performance.now() > sliceEnd) break;
  }
  let delay = 0;
  if (realtime && powered) {
    delay = Math.max(0, Math.min(20, (nowNs() - emuBase) / 1e6 - (performance.now() - wallBase)));
  }
  if (!powered) delay = 5;
  setTimeout(runSlice, delay);
}

// --- commands ---------------------------------------------------------------------------------------
function handle(cmd) {
  const reply = (obj) => emit(Object.assign({ id: cmd.id, t: nowNs() / 1e6 }, obj || {}));
  switch (cmd.cmd) {
    case 'inputs': { // the reed chain's closed bits, hex, chain order
      const b = Buffer.from(cmd.bits, 'hex');
      inputs.set(b.subarray(0, model.chips));
      reply();
      break;
    }
    case 'chain': // the 74HC165 chain goes wrong after module `after`: kind drop | double | cut | null
      chainFault = cmd.kind ? { after: cmd.after, kind: cmd.kind } : null;
      reply();
      break;
    case 'pin': // drive a button or the safe-mode pin: level 0 = pressed (to GND)
      pinLevels.set(cmd.gpio, cmd.level);
      if (powered) mcu.gpio[cmd.gpio].setInputValue(!!cmd.level);
      reply();
      break;
    case 'tap': { // press for `ms` of emulated time, then release
      if (!powered) { reply({ off: true }); break; } // nobody presses a button on a dark board
      pinLevels.set(cmd.gpio, 0);
      mcu.gpio[cmd.gpio].setInputValue(false);
      const pressedAt = nowNs();
      taps.set(cmd.id, cmd.gpio);
      const alarm = mcu.clock.createAlarm(() => {
        if (!taps.delete(cmd.id)) return; // answered by a power cut already
        pinLevels.set(cmd.gpio, 1);
        mcu.gpio[cmd.gpio].setInputValue(true);
        emit({ id: cmd.id, t: nowNs() / 1e6, pressed_ms: (nowNs() - pressedAt) / 1e6 });
      });
      alarm.schedule(Math.round(cmd.ms * 1e6));
      break;
    }
    case 'wait': // reply once `ms` of emulated time have passed (at once while the power is off)
      if (!powered) { reply({ off: true }); break; }
      waits.push([nowNs() + cmd.ms * 1e6, cmd.id]);
      break;
    case 'cut': // plan a power cut: {instructions: N} from now, or {in_flash, skip, fraction}, or {after_flash, skip}
      if (cmd.instructions !== undefined) cut = { atInstruction: instructions + cmd.instructions };
      else if (cmd.in_flash) cut = { inFlash: cmd.in_flash, skipOps: cmd.skip || 0, fraction: cmd.fraction ?? 0.5 };
      else if (cmd.after_flash) cut = { afterFlash: true, skipOps: cmd.skip || 0 };
      else if (cmd.now) { if (powered) powerOff({ where: 'now' }); }
      else cut = null; // no plan: cancel the planned cut
      reply();
      break;
    case 'power_on':
      if (!powered) powerOn();
      resetPace();
      reply();
      break;
    case 'realtime':
      realtime = !!cmd.on;
      resetPace();
      reply();
      break;
    case 'stats':
      reply(Object.assign({ instructions, powered, boots: bootCount, wall_ms: performance.now() }, stats));
      break;
    case 'quit':
      if (powered) fs.fsyncSync(flashFd);
      reply();
      setTimeout(() => process.exit(0), 10);
      break;
    default:
      reply({ error: 'unknown command ' + cmd.cmd });
  }
}

let inBuf = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  inBuf = Buffer.concat([inBuf, chunk]);
  while (inBuf.length >= 5) {
    const n = inBuf.readUInt32LE(1);
    if (inBuf.length < 5 + n) break;
    const type = String.fromCharCode(inBuf[0]);
    const payload = inBuf.subarray(5, 5 + n);
    inBuf = inBuf.subarray(5 + n);
    if (type === 'S') serialFromHost(payload);
    else if (type === 'C') handle(JSON.parse(payload.toString('utf8')));
  }
});
process.stdin.on('end', () => process.exit(0));

if (!args.off) powerOn();
resetPace();
runSlice();
