// execscope's Java stub (docs/languages.md): compiled beside the candidate's file, it answers
// calls of the entry points in the stub wire (crates/oracle/python/execscope_oracle/foreign.py):
// requests on fd 3, answers on fd 4. An entry point is a method of the candidate's classes (the
// class `Solution` first); each argument is decoded into the parameter's declared (generic) type
// by reflection and the result encoded by its runtime type; a value that does not fit the type
// is the call's error; an exception is named by its class.
// argv: ENTRY... -- CLASS...
import java.io.*;
import java.lang.reflect.*;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.*;

public final class EsStub__ {
    static final class Val {
        final char t;
        String s;
        byte[] b;
        final List<Val> k = new ArrayList<>();

        Val(char t) {
            this.t = t;
        }
    }

    static final class Fail extends RuntimeException {
        final String word;

        Fail(String word, String msg) {
            super(msg);
            this.word = word;
        }
    }

    static InputStream in;
    static ByteArrayOutputStream out = new ByteArrayOutputStream();

    static int get() throws IOException {
        int c = in.read();
        if (c < 0) Runtime.getRuntime().halt(0);
        return c;
    }

    static String upto() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c = get(); c != ';'; c = get()) sb.append((char) c);
        return sb.toString();
    }

    static int count() throws IOException {
        return Integer.parseInt(upto());
    }

    static byte[] take(int n) throws IOException {
        byte[] b = new byte[n];
        for (int j = 0; j < n; j++) b[j] = (byte) get();
        return b;
    }

    static Val read() throws IOException {
        Val v = new Val((char) get());
        switch (v.t) {
            case 'i': v.s = upto(); break;
            case 'f': v.s = new String(take(16), StandardCharsets.US_ASCII); break;
            case 's': case 'b': v.b = take(count()); break;
            case 'l': case 'p': case 'e': case 'd': {
                int n = count() * (v.t == 'd' ? 2 : 1);
                for (int j = 0; j < n; j++) v.k.add(read());
                break;
            }
            default: break;
        }
        return v;
    }

    static void put(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        out.write(b, 0, b.length);
    }

    static void putBytes(char t, byte[] b) {
        put(t + Integer.toString(b.length) + ";");
        out.write(b, 0, b.length);
    }

    static String kind(Val v) {
        switch (v.t) {
            case 'N': return "None";
            case 'T': case 'F': return "bool";
            case 'i': return "int";
            case 'f': return "float";
            case 's': return "str";
            case 'b': return "bytes";
            case 'l': return "list";
            case 'p': return "tuple";
            case 'e': return "set";
            default: return "dict";
        }
    }

    static Fail mismatch(Val v, Type t) {
        return new Fail("TypeError", "a " + kind(v) + " does not fit a Java " + t.getTypeName());
    }

    static BigInteger integer(Val v, Type t) {
        if (v.t != 'i') throw mismatch(v, t);
        return new BigInteger(v.s);
    }

    static long inRange(Val v, Type t, long lo, long hi) {
        BigInteger x = integer(v, t);
        if (x.compareTo(BigInteger.valueOf(lo)) < 0 || x.compareTo(BigInteger.valueOf(hi)) > 0)
            throw new Fail("OverflowError", "the int " + v.s + " does not fit a Java " + t.getTypeName());
        return x.longValue();
    }

    static double floating(Val v, Type t) {
        if (v.t == 'f') return Double.longBitsToDouble(Long.parseUnsignedLong(v.s, 16));
        if (v.t == 'i') {
            BigInteger x = new BigInteger(v.s);
            if (x.abs().compareTo(BigInteger.ONE.shiftLeft(53)) > 0)
                throw new Fail("OverflowError", "the int does not fit a float exactly");
            return x.doubleValue();
        }
        throw mismatch(v, t);
    }

    static String string(Val v, Type t) {
        if (v.t != 's') throw mismatch(v, t);
        return new String(v.b, StandardCharsets.UTF_8);
    }

    static boolean isItems(Val v) {
        return v.t == 'l' || v.t == 'p' || v.t == 'e';
    }

    /** A value of the test as the declared type `t`. */
    static Object in(Val v, Type t) {
        if (t instanceof WildcardType) return in(v, ((WildcardType) t).getUpperBounds()[0]);
        if (t instanceof TypeVariable) return dynamic(v);
        if (t instanceof GenericArrayType) return array(v, ((GenericArrayType) t).getGenericComponentType(), t);
        Class<?> raw;
        Type[] args = new Type[0];
        if (t instanceof ParameterizedType) {
            raw = (Class<?>) ((ParameterizedType) t).getRawType();
            args = ((ParameterizedType) t).getActualTypeArguments();
        } else {
            raw = (Class<?>) t;
        }
        if (raw.isPrimitive() && v.t == 'N') throw mismatch(v, t);
        if (v.t == 'N') {
            if (raw == Optional.class) return Optional.empty();
            return null;
        }
        if (raw == int.class || raw == Integer.class) return (int) inRange(v, t, Integer.MIN_VALUE, Integer.MAX_VALUE);
        if (raw == long.class || raw == Long.class) return inRange(v, t, Long.MIN_VALUE, Long.MAX_VALUE);
        if (raw == short.class || raw == Short.class) return (short) inRange(v, t, Short.MIN_VALUE, Short.MAX_VALUE);
        if (raw == byte.class || raw == Byte.class) return (byte) inRange(v, t, Byte.MIN_VALUE, Byte.MAX_VALUE);
        if (raw == BigInteger.class) return integer(v, t);
        if (raw == double.class || raw == Double.class) return floating(v, t);
        if (raw == float.class || raw == Float.class) {
            double d = floating(v, t);
            float f = (float) d;
            if (!Double.isInfinite(d) && !Double.isNaN(d) && Float.isInfinite(f))
                throw new Fail("OverflowError", "the float is out of a Java float's range");
            return f;
        }
        if (raw == boolean.class || raw == Boolean.class) {
            if (v.t != 'T' && v.t != 'F') throw mismatch(v, t);
            return v.t == 'T';
        }
        if (raw == char.class || raw == Character.class) {
            String s = string(v, t);
            if (s.length() != 1) throw mismatch(v, t);
            return s.charAt(0);
        }
        if (raw == String.class || raw == CharSequence.class) return string(v, t);
        if (raw == Object.class || raw == Number.class) return dynamic(v);
        if (raw.isArray()) return array(v, raw.getComponentType(), t);
        Type e = args.length > 0 ? args[0] : Object.class;
        if (raw == Optional.class) return Optional.of(in(v, e));
        if (raw.isAssignableFrom(ArrayList.class) || raw == LinkedList.class) {
            if (!isItems(v)) throw mismatch(v, t);
            Collection<Object> c = raw == LinkedList.class ? new LinkedList<>() : new ArrayList<>();
            for (Val x : v.k) c.add(in(x, e));
            return c;
        }
        if (raw.isAssignableFrom(LinkedHashSet.class) || raw == TreeSet.class) {
            if (!isItems(v)) throw mismatch(v, t);
            Set<Object> c = raw == TreeSet.class || raw == SortedSet.class ? new TreeSet<>() : new LinkedHashSet<>();
            for (Val x : v.k) c.add(in(x, e));
            return c;
        }
        if (raw.isAssignableFrom(LinkedHashMap.class) || raw == TreeMap.class) {
            if (v.t != 'd') throw mismatch(v, t);
            Type vt = args.length > 1 ? args[1] : Object.class;
            Map<Object, Object> m = raw == TreeMap.class || raw == SortedMap.class ? new TreeMap<>() : new LinkedHashMap<>();
            for (int j = 0; j + 1 < v.k.size(); j += 2) m.put(in(v.k.get(j), e), in(v.k.get(j + 1), vt));
            return m;
        }
        throw new Fail("TypeError", "a parameter of type " + t.getTypeName() + " execscope cannot pass to Java");
    }

    static Object array(Val v, Type component, Type t) {
        if (!isItems(v)) throw mismatch(v, t);
        Class<?> c = component instanceof Class ? (Class<?>) component
                : (Class<?>) ((ParameterizedType) component).getRawType();
        Object a = Array.newInstance(c, v.k.size());
        for (int j = 0; j < v.k.size(); j++) Array.set(a, j, in(v.k.get(j), component));
        return a;
    }

    /** A value of the test for an Object parameter, by the value's own type. */
    static Object dynamic(Val v) {
        switch (v.t) {
            case 'N': return null;
            case 'T': return Boolean.TRUE;
            case 'F': return Boolean.FALSE;
            case 'i': {
                BigInteger x = new BigInteger(v.s);
                if (x.bitLength() < 32) return x.intValue();
                if (x.bitLength() < 64) return x.longValue();
                return x;
            }
            case 'f': return floating(v, Double.class);
            case 's': return new String(v.b, StandardCharsets.UTF_8);
            case 'b': return v.b.clone();
            case 'e': {
                Set<Object> s = new LinkedHashSet<>();
                for (Val x : v.k) s.add(dynamic(x));
                return s;
            }
            case 'd': {
                Map<Object, Object> m = new LinkedHashMap<>();
                for (int j = 0; j + 1 < v.k.size(); j += 2) m.put(dynamic(v.k.get(j)), dynamic(v.k.get(j + 1)));
                return m;
            }
            default: {
                List<Object> l = new ArrayList<>();
                for (Val x : v.k) l.add(dynamic(x));
                return l;
            }
        }
    }

    static void putString(String s) {
        for (int j = 0; j < s.length(); j++) {
            char c = s.charAt(j);
            if (Character.isHighSurrogate(c) && j + 1 < s.length() && Character.isLowSurrogate(s.charAt(j + 1))) {
                j++;
            } else if (Character.isSurrogate(c)) {
                throw new Fail("UnicodeEncodeError", "a string with a lone surrogate cannot cross");
            }
        }
        putBytes('s', s.getBytes(StandardCharsets.UTF_8));
    }

    /** A result, by its runtime type. */
    static void out(Object x, int depth) {
        if (depth > 1000) throw new Fail("ValueError", "a value nested too deeply to cross");
        if (x == null) { put("N"); return; }
        if (x instanceof Boolean) { put((Boolean) x ? "T" : "F"); return; }
        if (x instanceof Integer || x instanceof Long || x instanceof Short || x instanceof Byte || x instanceof BigInteger) {
            put("i" + x + ";");
            return;
        }
        if (x instanceof Double || x instanceof Float) {
            put("f" + String.format("%016x", Double.doubleToRawLongBits(((Number) x).doubleValue())));
            return;
        }
        if (x instanceof Character) { putString(x.toString()); return; }
        if (x instanceof String) { putString((String) x); return; }
        if (x instanceof Optional) {
            Optional<?> o = (Optional<?>) x;
            if (o.isPresent()) out(o.get(), depth + 1); else put("N");
            return;
        }
        if (x.getClass().isArray()) {
            int n = Array.getLength(x);
            put("l" + n + ";");
            for (int j = 0; j < n; j++) out(Array.get(x, j), depth + 1);
            return;
        }
        if (x instanceof Set) {
            Set<?> s = (Set<?>) x;
            put("e" + s.size() + ";");
            for (Object y : s) out(y, depth + 1);
            return;
        }
        if (x instanceof Collection) {
            Collection<?> c = (Collection<?>) x;
            put("l" + c.size() + ";");
            for (Object y : c) out(y, depth + 1);
            return;
        }
        if (x instanceof Map) {
            Map<?, ?> m = (Map<?, ?>) x;
            put("d" + m.size() + ";");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out(e.getKey(), depth + 1);
                out(e.getValue(), depth + 1);
            }
            return;
        }
        throw new Fail("TypeError", "a result of class " + x.getClass().getSimpleName() + " cannot cross to the judge");
    }

    static String wordOf(Throwable e) {
        if (e instanceof Fail) return ((Fail) e).word;
        if (e instanceof ExceptionInInitializerError && e.getCause() != null) return wordOf(e.getCause());
        if (e instanceof ArithmeticException) {
            String m = String.valueOf(e.getMessage());
            return m.contains("by zero") ? "ZeroDivisionError" : "ArithmeticError";
        }
        if (e instanceof IndexOutOfBoundsException) return "IndexError";
        if (e instanceof IllegalArgumentException || e instanceof NegativeArraySizeException) return "ValueError";
        if (e instanceof ClassCastException || e instanceof ArrayStoreException) return "TypeError";
        if (e instanceof StackOverflowError) return "RecursionError";
        if (e instanceof OutOfMemoryError) return "MemoryError";
        if (e instanceof ConcurrentModificationException) return "RuntimeError";
        if (e instanceof UnsupportedOperationException) return "NotImplementedError";
        if (e instanceof AssertionError) return "AssertionError";
        return "Other";
    }

    static void answerError(Throwable e) {
        out.reset();
        put("x");
        putBytes('s', wordOf(e).getBytes(StandardCharsets.UTF_8));
        String m = String.valueOf(e.getMessage());
        if (m.length() > 1000) m = m.substring(0, 1000);
        putBytes('s', m.getBytes(StandardCharsets.UTF_8));
    }

    public static void main(String[] argv) throws Throwable {
        in = new BufferedInputStream(new FileInputStream("/proc/self/fd/3"), 1 << 16);
        OutputStream answers = new FileOutputStream("/proc/self/fd/4");
        PrintStream none = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(none);
        System.setErr(none);
        System.setIn(new ByteArrayInputStream(new byte[0]));
        int sep = Arrays.asList(argv).indexOf("--");
        List<String> entries = Arrays.asList(argv).subList(0, sep);
        List<String> classes = Arrays.asList(argv).subList(sep + 1, argv.length);
        ClassLoader loader = EsStub__.class.getClassLoader();
        List<List<Method>> found = new ArrayList<>();
        StringBuilder hello = new StringBuilder("hl" + entries.size() + ";");
        for (String name : entries) {
            List<Method> ms = new ArrayList<>();
            for (String c : classes) {
                if (!ms.isEmpty()) break;
                Class<?> cls;
                try {
                    cls = Class.forName(c, false, loader);
                } catch (Throwable e) {
                    continue;
                }
                for (Method m : cls.getDeclaredMethods()) {
                    if (m.getName().equals(name) && !m.isSynthetic() && !m.isBridge()) ms.add(m);
                }
            }
            found.add(ms);
            hello.append(ms.isEmpty() ? 'F' : 'T');
        }
        put(hello.toString());
        Map<Class<?>, Object> instances = new HashMap<>();
        for (;;) {
            answers.write(out.toByteArray());
            answers.flush();
            out.reset();
            int c = get();
            while (c == 'n') {
                instances.clear(); // a new test: a new instance of the class
                c = get();
            }
            if (c != 'c') Runtime.getRuntime().halt(0);
            int k = count(), n = count();
            List<Val> args = new ArrayList<>();
            for (int j = 0; j < n; j++) args.add(read());
            try {
                if (k >= found.size() || found.get(k).isEmpty()) throw new Fail("TypeError", "no such entry point");
                Method m = null;
                for (Method x : found.get(k)) {
                    if (x.getParameterCount() == n) {
                        m = x;
                        break;
                    }
                }
                if (m == null) throw new Fail("TypeError", "no overload takes " + n + " arguments");
                Type[] ts = m.getGenericParameterTypes();
                Object[] a = new Object[n];
                for (int j = 0; j < n; j++) a[j] = in(args.get(j), ts[j]);
                m.setAccessible(true);
                Object self = null;
                if (!Modifier.isStatic(m.getModifiers())) {
                    Class<?> cls = m.getDeclaringClass();
                    self = instances.get(cls);
                    if (self == null) {
                        Constructor<?> ctor = cls.getDeclaredConstructor();
                        ctor.setAccessible(true);
                        self = ctor.newInstance();
                        instances.put(cls, self);
                    }
                }
                Object r;
                try {
                    r = m.invoke(self, a);
                } catch (IllegalArgumentException e) {
                    throw new Fail("TypeError", "the arguments do not fit the method");
                }
                put("v");
                if (m.getReturnType() == void.class) put("N"); else out(r, 0);
            } catch (InvocationTargetException e) {
                answerError(e.getCause() != null ? e.getCause() : e);
            } catch (Throwable e) {
                answerError(e);
            }
        }
    }
}
