// execscope's C++ stub (docs/languages.md): appended to the candidate's own translation unit, it
// answers calls of the entry points in the stub wire (crates/oracle/python/execscope_oracle/
// foreign.py): requests on fd 3, answers on fd 4. Each argument is decoded into the parameter's
// declared type (template deduction from the function pointer) and the result encoded by the
// declared return type; a value that does not fit the type is the call's error. Containers of
// headers the candidate did not include are not needed by its signature, so their support is
// compiled only when their header is there (the library's include guards).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <unistd.h>

namespace es {

struct Val {
    char t = 'N';           // N T F i f s b l p e d
    std::string s;          // i: decimal digits; f: 16 hex digits; s, b: the bytes
    std::vector<Val> k;     // l p e: items; d: key, value, key, value, ...
};

struct Err {
    const char* word;
    std::string msg;
};

[[noreturn]] inline void fail(const char* word, const std::string& msg) { throw Err{word, msg}; }

// -- the wire ------------------------------------------------------------------------------------
struct In {
    char buf[65536];
    size_t at = 0, n = 0;
    int get() {
        if (at == n) {
            ssize_t r;
            do { r = ::read(3, buf, sizeof buf); } while (r < 0 && errno == EINTR);
            if (r <= 0) std::_Exit(0);
            at = 0;
            n = (size_t)r;
        }
        return (unsigned char)buf[at++];
    }
    size_t count() {
        size_t v = 0;
        for (int c = get(); c != ';'; c = get()) v = v * 10 + (size_t)(c - '0');
        return v;
    }
    Val value() {
        Val v;
        v.t = (char)get();
        switch (v.t) {
        case 'i':
            for (int c = get(); c != ';'; c = get()) v.s.push_back((char)c);
            break;
        case 'f':
            for (int j = 0; j < 16; j++) v.s.push_back((char)get());
            break;
        case 's': case 'b': {
            size_t m = count();
            v.s.resize(m);
            for (size_t j = 0; j < m; j++) v.s[j] = (char)get();
            break;
        }
        case 'l': case 'p': case 'e': case 'd': {
            size_t m = count() * (v.t == 'd' ? 2 : 1);
            v.k.reserve(m);
            for (size_t j = 0; j < m; j++) v.k.push_back(value());
            break;
        }
        default:
            break;
        }
        return v;
    }
};

struct Out {
    std::string buf;
    void put(const Val& v) {
        buf.push_back(v.t);
        switch (v.t) {
        case 'i': buf += v.s; buf.push_back(';'); break;
        case 'f': buf += v.s; break;
        case 's': case 'b': buf += std::to_string(v.s.size()); buf.push_back(';'); buf += v.s; break;
        case 'l': case 'p': case 'e': case 'd':
            buf += std::to_string(v.k.size() / (v.t == 'd' ? 2 : 1));
            buf.push_back(';');
            for (const Val& x : v.k) put(x);
            break;
        default: break;
        }
    }
    void flush() {
        size_t at = 0;
        while (at < buf.size()) {
            ssize_t w = ::write(4, buf.data() + at, buf.size() - at);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) std::_Exit(0);
            at += (size_t)w;
        }
        buf.clear();
    }
};

inline Val str_val(char t, std::string s) { Val v; v.t = t; v.s = std::move(s); return v; }
inline Val seq_val(char t) { Val v; v.t = t; return v; }

// -- numbers -------------------------------------------------------------------------------------
inline bool parse_i128(const std::string& s, __int128& out) {
    size_t j = 0;
    bool neg = !s.empty() && s[0] == '-';
    if (neg) j = 1;
    if (j >= s.size() || s.size() - j > 39) return false;
    unsigned __int128 v = 0;
    for (; j < s.size(); j++) {
        if (s[j] < '0' || s[j] > '9') return false;
        unsigned __int128 nv = v * 10 + (unsigned)(s[j] - '0');
        if (nv / 10 != v) return false;
        v = nv;
    }
    const unsigned __int128 lim = (unsigned __int128)1 << 127;
    if (neg ? v > lim : v >= lim) return false;
    out = neg ? -(__int128)v : (__int128)v;
    return true;
}

inline std::string i128_text(__int128 x) {
    if (x == 0) return "0";
    bool neg = x < 0;
    unsigned __int128 v = neg ? (unsigned __int128)(-(x + 1)) + 1 : (unsigned __int128)x;
    std::string s;
    while (v) { s.push_back((char)('0' + (int)(v % 10))); v /= 10; }
    if (neg) s.push_back('-');
    return std::string(s.rbegin(), s.rend());
}

inline std::string u128_text(unsigned __int128 v) {
    if (v == 0) return "0";
    std::string s;
    while (v) { s.push_back((char)('0' + (int)(v % 10))); v /= 10; }
    return std::string(s.rbegin(), s.rend());
}

inline double bits_double(const std::string& h) {
    uint64_t b = 0;
    for (char c : h) b = (b << 4) | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

inline Val double_val(double d) {
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    static const char* hex = "0123456789abcdef";
    std::string s(16, '0');
    for (int j = 15; j >= 0; j--) { s[(size_t)j] = hex[b & 15]; b >>= 4; }
    return str_val('f', s);
}

inline const char* kind(const Val& v) {
    switch (v.t) {
    case 'N': return "None"; case 'T': case 'F': return "bool"; case 'i': return "int";
    case 'f': return "float"; case 's': return "str"; case 'b': return "bytes"; case 'l': return "list";
    case 'p': return "tuple"; case 'e': return "set"; case 'd': return "dict";
    }
    return "?";
}

[[noreturn]] inline void mismatch(const Val& v, const char* want) {
    fail("TypeError", std::string("a ") + kind(v) + " does not fit a C++ " + want);
}

inline void want_items(const Val& v, const char* want) {
    if (v.t != 'l' && v.t != 'p' && v.t != 'e') mismatch(v, want);
}

// -- types: in (a value of the test into the declared type) and out (the result) ----------------
template <class T, class = void>
struct Conv {
    static T in(const Val&) { fail("TypeError", "a parameter of a type execscope cannot pass to C++"); }
    static Val out(const T&) { fail("TypeError", "a result of a type execscope cannot take from C++"); }
};

template <>
struct Conv<bool> {
    static bool in(const Val& v) {
        if (v.t != 'T' && v.t != 'F') mismatch(v, "bool");
        return v.t == 'T';
    }
    static Val out(bool b) { return seq_val(b ? 'T' : 'F'); }
};

template <>
struct Conv<char> {
    static char in(const Val& v) {
        if (v.t != 's' || v.s.size() != 1) mismatch(v, "char");
        return v.s[0];
    }
    static Val out(char c) { return str_val('s', std::string(1, c)); }
};

template <class T>
struct Conv<T, std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                                 !std::is_same<T, char>::value>> {
    static T in(const Val& v) {
        if (v.t != 'i') mismatch(v, "integer");
        __int128 x;
        if (!parse_i128(v.s, x) || x < (__int128)std::numeric_limits<T>::min() ||
            x > (__int128)std::numeric_limits<T>::max())
            fail("OverflowError", "the int " + v.s.substr(0, 40) + " does not fit the parameter's integer type");
        return (T)x;
    }
    static Val out(T x) {
        if (std::is_signed<T>::value) return str_val('i', i128_text((__int128)x));
        return str_val('i', u128_text((unsigned __int128)x));
    }
};

template <class T>
struct Conv<T, std::enable_if_t<std::is_floating_point<T>::value>> {
    static T in(const Val& v) {
        double d;
        if (v.t == 'f') {
            d = bits_double(v.s);
        } else if (v.t == 'i') {
            __int128 x;
            if (!parse_i128(v.s, x) || x > ((__int128)1 << 53) || x < -((__int128)1 << 53))
                fail("OverflowError", "the int does not fit a floating-point parameter exactly");
            d = (double)(long long)x;
        } else {
            mismatch(v, "floating-point number");
        }
        T t = (T)d;
        if (std::isfinite(d) && !std::isfinite((double)t)) fail("OverflowError", "the float is out of the parameter's range");
        return t;
    }
    static Val out(T x) { return double_val((double)x); }
};

template <>
struct Conv<std::string> {
    static std::string in(const Val& v) {
        if (v.t != 's') mismatch(v, "string");
        return v.s;
    }
    static Val out(const std::string& s) { return str_val('s', s); }
};

template <>
struct Conv<const char*> {
    static const char* in(const Val& v) {
        if (v.t != 's' || std::memchr(v.s.data(), 0, v.s.size())) mismatch(v, "const char*");
        char* p = (char*)std::malloc(v.s.size() + 1);
        if (!p) throw std::bad_alloc();
        std::memcpy(p, v.s.c_str(), v.s.size() + 1);
        return p;  // kept for the process's life: the callee may keep it
    }
    static Val out(const char* p) { return p ? str_val('s', p) : seq_val('N'); }
};

template <>
struct Conv<char*> {
    static char* in(const Val& v) { return const_cast<char*>(Conv<const char*>::in(v)); }
    static Val out(const char* p) { return Conv<const char*>::out(p); }
};

// A sequence container filled by push_back (vector, list, deque).
template <class C>
struct SeqConv {
    using T = typename C::value_type;
    static C in(const Val& v) {
        want_items(v, "sequence");
        C c;
        for (const Val& x : v.k) c.push_back(Conv<T>::in(x));
        return c;
    }
    static Val out(const C& c) {
        Val v = seq_val('l');
        for (auto it = c.begin(); it != c.end(); ++it) v.k.push_back(Conv<T>::out(static_cast<T>(*it)));
        return v;
    }
};

template <class T, class A>
struct Conv<std::vector<T, A>> : SeqConv<std::vector<T, A>> {};

template <class A, class B>
struct Conv<std::pair<A, B>> {
    static std::pair<A, B> in(const Val& v) {
        if ((v.t != 'p' && v.t != 'l') || v.k.size() != 2) mismatch(v, "pair");
        return std::pair<A, B>(Conv<A>::in(v.k[0]), Conv<B>::in(v.k[1]));
    }
    static Val out(const std::pair<A, B>& p) {
        Val v = seq_val('p');
        v.k.push_back(Conv<A>::out(p.first));
        v.k.push_back(Conv<B>::out(p.second));
        return v;
    }
};

template <class... T>
struct Conv<std::tuple<T...>> {
    template <size_t... I>
    static std::tuple<T...> in_(const Val& v, std::index_sequence<I...>) {
        return std::tuple<T...>{Conv<T>::in(v.k[I])...};
    }
    static std::tuple<T...> in(const Val& v) {
        if ((v.t != 'p' && v.t != 'l') || v.k.size() != sizeof...(T)) mismatch(v, "tuple");
        return in_(v, std::index_sequence_for<T...>{});
    }
    template <size_t... I>
    static Val out_(const std::tuple<T...>& t, std::index_sequence<I...>) {
        Val v = seq_val('p');
        (v.k.push_back(Conv<T>::out(std::get<I>(t))), ...);
        return v;
    }
    static Val out(const std::tuple<T...>& t) { return out_(t, std::index_sequence_for<T...>{}); }
};

#ifdef _GLIBCXX_LIST
template <class T, class A>
struct Conv<std::list<T, A>> : SeqConv<std::list<T, A>> {};
#endif
#ifdef _GLIBCXX_DEQUE
template <class T, class A>
struct Conv<std::deque<T, A>> : SeqConv<std::deque<T, A>> {};
#endif
#ifdef _GLIBCXX_ARRAY
template <class T, size_t N>
struct Conv<std::array<T, N>> {
    static std::array<T, N> in(const Val& v) {
        want_items(v, "array");
        if (v.k.size() != N) mismatch(v, "std::array of another length");
        std::array<T, N> a;
        for (size_t j = 0; j < N; j++) a[j] = Conv<T>::in(v.k[j]);
        return a;
    }
    static Val out(const std::array<T, N>& a) {
        Val v = seq_val('p');
        for (const T& x : a) v.k.push_back(Conv<T>::out(x));
        return v;
    }
};
#endif
#ifdef _GLIBCXX_OPTIONAL
template <class T>
struct Conv<std::optional<T>> {
    static std::optional<T> in(const Val& v) {
        if (v.t == 'N') return std::nullopt;
        return Conv<T>::in(v);
    }
    static Val out(const std::optional<T>& o) { return o ? Conv<T>::out(*o) : seq_val('N'); }
};
#endif

// A set (set, multiset, unordered_set): from any collection; out as a Python set (a multiset,
// whose duplicates a set would drop, as a list).
template <class C, char Tag>
struct SetConv {
    using T = typename C::value_type;
    static C in(const Val& v) {
        want_items(v, "set");
        C c;
        for (const Val& x : v.k) c.insert(Conv<T>::in(x));
        return c;
    }
    static Val out(const C& c) {
        Val v = seq_val(Tag);
        for (const T& x : c) v.k.push_back(Conv<T>::out(x));
        return v;
    }
};

template <class C>
struct MapConv {
    using K = typename C::key_type;
    using V = typename C::mapped_type;
    static C in(const Val& v) {
        if (v.t != 'd') mismatch(v, "map");
        C c;
        for (size_t j = 0; j + 1 < v.k.size(); j += 2) c.emplace(Conv<K>::in(v.k[j]), Conv<V>::in(v.k[j + 1]));
        return c;
    }
    static Val out(const C& c) {
        Val v = seq_val('d');
        for (const auto& kv : c) {
            v.k.push_back(Conv<K>::out(kv.first));
            v.k.push_back(Conv<V>::out(kv.second));
        }
        return v;
    }
};

#ifdef _GLIBCXX_SET
template <class T, class L, class A>
struct Conv<std::set<T, L, A>> : SetConv<std::set<T, L, A>, 'e'> {};
template <class T, class L, class A>
struct Conv<std::multiset<T, L, A>> : SetConv<std::multiset<T, L, A>, 'l'> {};
#endif
#ifdef _GLIBCXX_UNORDERED_SET
template <class T, class H, class E, class A>
struct Conv<std::unordered_set<T, H, E, A>> : SetConv<std::unordered_set<T, H, E, A>, 'e'> {};
#endif
#ifdef _GLIBCXX_MAP
template <class K, class V, class L, class A>
struct Conv<std::map<K, V, L, A>> : MapConv<std::map<K, V, L, A>> {};
#endif
#ifdef _GLIBCXX_UNORDERED_MAP
template <class K, class V, class H, class E, class A>
struct Conv<std::unordered_map<K, V, H, E, A>> : MapConv<std::unordered_map<K, V, H, E, A>> {};
#endif

// -- calls ---------------------------------------------------------------------------------------
template <class R, class... A, size_t... I>
Val invoke_(R (*f)(A...), const std::vector<Val>& a, std::index_sequence<I...>) {
    if (a.size() != sizeof...(A))
        fail("TypeError", "the function takes " + std::to_string(sizeof...(A)) + " arguments, " +
                              std::to_string(a.size()) + " given");
    std::tuple<std::decay_t<A>...> args{Conv<std::decay_t<A>>::in(a[I])...};
    if constexpr (std::is_void<R>::value) {
        f(static_cast<A>(std::get<I>(args))...);
        return seq_val('N');
    } else {
        return Conv<std::decay_t<R>>::out(f(static_cast<A>(std::get<I>(args))...));
    }
}

template <class R, class... A>
Val invoke(R (*f)(A...), const std::vector<Val>& a) {
    return invoke_(f, a, std::index_sequence_for<A...>{});
}

template <class R, class... A>
Val invoke(R (*f)(A...) noexcept, const std::vector<Val>& a) {
    R (*g)(A...) = f;
    return invoke_(g, a, std::index_sequence_for<A...>{});
}

using Fn = Val (*)(const std::vector<Val>&);

template <auto F>
Val call(const std::vector<Val>& a) {
    return invoke(F, a);
}

inline void answer_error(Out& out, const char* word, const char* what) {
    out.buf.push_back('x');
    out.put(str_val('s', word));
    std::string m(what ? what : "");
    if (m.size() > 1000) m.resize(1000);
    out.put(str_val('s', m));
}

inline int serve(std::initializer_list<Fn> fns) {
    static In in;
    static Out out;
    std::vector<Fn> f(fns);
    Val hello = seq_val('l');
    for (size_t j = 0; j < f.size(); j++) hello.k.push_back(seq_val('T'));
    out.buf.push_back('h');
    out.put(hello);
    out.flush();
    for (;;) {
        int c = in.get();
        if (c == 'n') continue;
        if (c != 'c') std::_Exit(0);
        size_t k = in.count(), n = in.count();
        std::vector<Val> args;
        args.reserve(n);
        for (size_t j = 0; j < n; j++) args.push_back(in.value());
        try {
            if (k >= f.size()) fail("TypeError", "no such entry point");
            Val r = f[k](args);
            out.buf.push_back('v');
            out.put(r);
        } catch (const Err& e) {
            answer_error(out, e.word, e.msg.c_str());
        } catch (const std::out_of_range& e) {
            answer_error(out, "IndexError", e.what());
        } catch (const std::invalid_argument& e) {
            answer_error(out, "ValueError", e.what());
        } catch (const std::domain_error& e) {
            answer_error(out, "ValueError", e.what());
        } catch (const std::length_error& e) {
            answer_error(out, "ValueError", e.what());
        } catch (const std::overflow_error& e) {
            answer_error(out, "OverflowError", e.what());
        } catch (const std::underflow_error& e) {
            answer_error(out, "ArithmeticError", e.what());
        } catch (const std::range_error& e) {
            answer_error(out, "ValueError", e.what());
        } catch (const std::bad_alloc& e) {
            answer_error(out, "MemoryError", e.what());
        } catch (const std::runtime_error& e) {
            answer_error(out, "RuntimeError", e.what());
        } catch (const std::exception& e) {
            answer_error(out, "Other", e.what());
        } catch (...) {
            answer_error(out, "Other", "");
        }
        out.flush();
    }
}

}  // namespace es
