// execscope's JavaScript (and TypeScript) stub (docs/languages.md): loads the candidate's program
// as a classic script of this process's only context, then answers calls of its entry points in
// the stub wire (crates/oracle/python/execscope_oracle/foreign.py): requests on fd 3, answers on
// fd 4. Arguments arrive as JavaScript's values (an int as a number when it is a safe integer, a
// dict with string keys as a plain object, else as a Map); a result crosses by its type, never
// through a method of its own (no valueOf, toString or Symbol.toPrimitive is asked).
// argv: node es_stub.js CANDIDATE TYPESCRIPT_DIR|"" ENTRY...
const fs = require('fs');
const vm = require('vm');

const [candidate, tsDir, ...entries] = process.argv.slice(2);
// What the stub uses, taken before the candidate runs (it may replace any of them in its own
// process: that changes only its own answers).
const readSync = fs.readSync;
const writeSync = fs.writeSync;
const quit = (process.reallyExit || process.exit).bind(process);
const isWellFormed = String.prototype.isWellFormed;
const IN = 3;
const OUT = 4;
const inBuf = Buffer.alloc(1 << 16);
let inAt = 0;
let inLen = 0;
const outParts = [];

function byte() {
  if (inAt === inLen) {
    let n = 0;
    try {
      n = readSync(IN, inBuf, 0, inBuf.length, null);
    } catch (e) {
      n = 0;
    }
    if (n <= 0) quit(0);
    inAt = 0;
    inLen = n;
  }
  return inBuf[inAt++];
}

function upto() {
  let s = '';
  for (let c = byte(); c !== 59; c = byte()) s += String.fromCharCode(c);
  return s;
}

function take(n) {
  const b = Buffer.alloc(n);
  for (let j = 0; j < n; j++) b[j] = byte();
  return b;
}

class Fail extends Error {
  constructor(word, msg) {
    super(msg);
    this.word = word;
  }
}

const SAFE = 2 ** 53;
let readErr = null; // the first part of the arguments JavaScript cannot hold (read to their end)

// A value of the test, as JavaScript's.
function read() {
  const t = String.fromCharCode(byte());
  switch (t) {
    case 'N': return null;
    case 'T': return true;
    case 'F': return false;
    case 'i': {
      const s = upto();
      const b = BigInt(s);
      if (b > BigInt(SAFE) || b < -BigInt(SAFE)) {
        readErr = readErr || new Fail('OverflowError', 'the int ' + s.slice(0, 40) + ' is beyond a JavaScript number');
      }
      return Number(b);
    }
    case 'f': {
      const h = take(16).toString('latin1');
      const dv = new DataView(new ArrayBuffer(8));
      dv.setBigUint64(0, BigInt('0x' + h));
      return dv.getFloat64(0);
    }
    case 's': return take(Number(upto())).toString('utf8');
    case 'b': return new Uint8Array(take(Number(upto())));
    case 'l': case 'p': case 'e': {
      const n = Number(upto());
      const a = [];
      for (let j = 0; j < n; j++) a.push(read());
      return t === 'e' ? new Set(a) : a;
    }
    case 'd': {
      const n = Number(upto());
      const pairs = [];
      for (let j = 0; j < n; j++) pairs.push([read(), read()]);
      if (pairs.every(([k]) => typeof k === 'string')) {
        const o = {};
        for (const [k, v] of pairs) Object.defineProperty(o, k, {value: v, writable: true, enumerable: true, configurable: true});
        return o;
      }
      return new Map(pairs);
    }
    default:
      quit(0);
  }
  return null;
}

// The arguments of a call, read to their end before any of them is refused.
function readArgs(n) {
  readErr = null;
  const out = [];
  for (let j = 0; j < n; j++) out.push(read());
  if (readErr) throw readErr;
  return out;
}

function put(s) {
  outParts.push(typeof s === 'string' ? Buffer.from(s, 'latin1') : s);
}

const protoOf = Object.getPrototypeOf;
const OBJ = Object.prototype;
const isArray = Array.isArray;

function write(v, seen) {
  if (v === null || v === undefined) return put('N');
  const t = typeof v;
  if (t === 'boolean') return put(v ? 'T' : 'F');
  if (t === 'number') {
    if (Number.isInteger(v) && Math.abs(v) <= SAFE && !Object.is(v, -0)) return put('i' + v.toFixed(0) + ';');
    const dv = new DataView(new ArrayBuffer(8));
    dv.setFloat64(0, v);
    return put('f' + dv.getBigUint64(0).toString(16).padStart(16, '0'));
  }
  if (t === 'bigint') return put('i' + v.toString() + ';');
  if (t === 'string') {
    if (!isWellFormed.call(v)) throw new Fail('UnicodeEncodeError', 'a string with a lone surrogate cannot cross');
    const b = Buffer.from(v, 'utf8');
    put('s' + b.length + ';');
    return put(b);
  }
  if (t !== 'object') throw new Fail('TypeError', 'a ' + t + ' cannot cross to the judge');
  if (seen.has(v)) throw new Fail('ValueError', 'a value that contains itself cannot cross');
  seen.add(v);
  try {
    if (isArray(v)) {
      const n = v.length;
      put('l' + n + ';');
      for (let j = 0; j < n; j++) write(v[j], seen);
    } else if (v instanceof Uint8Array) {
      put('b' + v.length + ';');
      put(Buffer.from(v));
    } else if (v instanceof Set) {
      const a = [...v];
      put('e' + a.length + ';');
      for (const x of a) write(x, seen);
    } else if (v instanceof Map) {
      const a = [...v];
      put('d' + a.length + ';');
      for (const [k, x] of a) {
        write(k, seen);
        write(x, seen);
      }
    } else if (protoOf(v) === OBJ || protoOf(v) === null) {
      const keys = Object.keys(v);
      put('d' + keys.length + ';');
      for (const k of keys) {
        write(k, seen);
        write(v[k], seen);
      }
    } else {
      throw new Fail('TypeError', 'an object of a class cannot cross to the judge');
    }
  } finally {
    seen.delete(v);
  }
  return undefined;
}

function flush() {
  const b = Buffer.concat(outParts);
  outParts.length = 0;
  let at = 0;
  while (at < b.length) {
    let n = 0;
    try {
      n = writeSync(OUT, b, at, b.length - at);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      quit(0);
    }
    at += n;
  }
}

function writeStr(s) {
  const b = Buffer.from(String(s).slice(0, 1000), 'utf8');
  put('s' + b.length + ';');
  put(b);
}

function answerError(word, msg) {
  outParts.length = 0;
  put('x');
  writeStr(word);
  writeStr(msg);
}

const WORDS = [
  [RangeError, 'ValueError'],
  [TypeError, 'TypeError'],
  [ReferenceError, 'NameError'],
  [SyntaxError, 'ValueError'],
  [URIError, 'ValueError'],
  [EvalError, 'Other'],
];

function wordOf(e) {
  if (e instanceof Fail) return e.word;
  if (e instanceof RangeError && /call stack/i.test(String(e.message))) return 'RecursionError';
  for (const [cls, word] of WORDS) if (e instanceof cls) return word;
  return 'Other';
}

function messageOf(e) {
  try {
    if (e instanceof Error) return String(e.message);
    return typeof e === 'string' ? e : '';
  } catch (x) {
    return '';
  }
}

function hello(v) {
  put('h');
  write(v, new Set());
  flush();
}

// Loading: TypeScript is first turned into JavaScript (syntax only, as `tsc --isolatedModules`
// would: type errors are not the runtime's). A program that does not parse is a compile error.
let source = fs.readFileSync(candidate, 'utf8');
let script;
try {
  if (tsDir) {
    const ts = require(tsDir);
    const out = ts.transpileModule(source, {
      compilerOptions: {target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS},
      reportDiagnostics: true,
      fileName: candidate,
    });
    if (out.diagnostics && out.diagnostics.length) throw new SyntaxError('TypeScript syntax');
    source = out.outputText;
  }
  script = new vm.Script(source, {filename: candidate});
} catch (e) {
  hello('CompileError');
  script = null;
}
if (script !== null) {
  const g = globalThis;
  g.require = require;
  g.module = {exports: {}};
  g.exports = g.module.exports;
  g.__filename = candidate;
  g.__dirname = require('path').dirname(candidate);
  let loaded = true;
  try {
    script.runInThisContext();
  } catch (e) {
    hello(wordOf(e) === 'Other' ? 'Other' : wordOf(e));
    loaded = false;
  }
  if (loaded) {
    const fns = entries.map((name) => {
      let f;
      try {
        f = vm.runInThisContext(name);
      } catch (e) {
        f = undefined;
      }
      if (typeof f !== 'function' && g.module && g.module.exports) {
        const ex = g.module.exports;
        f = typeof ex === 'function' && ex.name === name ? ex : (ex && typeof ex === 'object' ? ex[name] : undefined);
      }
      return typeof f === 'function' ? f : null;
    });
    hello(fns.map((f) => f !== null));
    serve(fns);
  }
}
quit(0);

function serve(fns) {
  for (;;) {
    const c = byte();
    if (c === 110) continue; // n: a new test
    if (c !== 99) quit(0); // c: a call
    const k = Number(upto());
    const n = Number(upto());
    try {
      const args = readArgs(n);
      const f = fns[k];
      if (!f) throw new Fail('TypeError', 'no such entry point');
      const r = f(...args);
      put('v');
      write(r, new Set());
    } catch (e) {
      answerError(wordOf(e), messageOf(e));
    }
    flush();
  }
}
