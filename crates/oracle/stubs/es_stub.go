// execscope's Go stub (docs/languages.md): a file of the candidate's package main that answers
// calls of the entry points in the stub wire (crates/oracle/python/execscope_oracle/foreign.py):
// requests on fd 3, answers on fd 4. Each argument is decoded into the parameter's declared type
// (reflection) and the result encoded by its type; a value that does not fit the type is the
// call's error; a panic is recovered and named by its message. execscope appends the entry
// points: `var esEntries = []interface{}{F, ...}`.
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

type esVal struct {
	t byte // N T F i f s b l p e d
	s string
	k []esVal
}

type esFail struct {
	word, msg string
}

type esReader struct{ r *bufio.Reader }

func (in esReader) byte() byte {
	c, err := in.r.ReadByte()
	if err != nil {
		os.Exit(0)
	}
	return c
}

func (in esReader) upto() string {
	var b []byte
	for c := in.byte(); c != ';'; c = in.byte() {
		b = append(b, c)
	}
	return string(b)
}

func (in esReader) count() int {
	n, _ := strconv.Atoi(in.upto())
	return n
}

func (in esReader) value() esVal {
	v := esVal{t: in.byte()}
	switch v.t {
	case 'i':
		v.s = in.upto()
	case 'f':
		b := make([]byte, 16)
		for j := range b {
			b[j] = in.byte()
		}
		v.s = string(b)
	case 's', 'b':
		b := make([]byte, in.count())
		for j := range b {
			b[j] = in.byte()
		}
		v.s = string(b)
	case 'l', 'p', 'e', 'd':
		n := in.count()
		if v.t == 'd' {
			n *= 2
		}
		for j := 0; j < n; j++ {
			v.k = append(v.k, in.value())
		}
	}
	return v
}

func esPut(b []byte, v esVal) []byte {
	b = append(b, v.t)
	switch v.t {
	case 'i':
		b = append(b, v.s...)
		b = append(b, ';')
	case 'f':
		b = append(b, v.s...)
	case 's', 'b':
		b = append(b, strconv.Itoa(len(v.s))...)
		b = append(b, ';')
		b = append(b, v.s...)
	case 'l', 'p', 'e', 'd':
		n := len(v.k)
		if v.t == 'd' {
			n /= 2
		}
		b = append(b, strconv.Itoa(n)...)
		b = append(b, ';')
		for _, x := range v.k {
			b = esPut(b, x)
		}
	}
	return b
}

func esKind(v esVal) string {
	return map[byte]string{'N': "None", 'T': "bool", 'F': "bool", 'i': "int", 'f': "float", 's': "str",
		'b': "bytes", 'l': "list", 'p': "tuple", 'e': "set", 'd': "dict"}[v.t]
}

func esMismatch(v esVal, t reflect.Type) {
	panic(esFail{"TypeError", "a " + esKind(v) + " does not fit a Go " + t.String()})
}

func esFloat(v esVal, t reflect.Type) float64 {
	switch v.t {
	case 'f':
		bits, _ := strconv.ParseUint(v.s, 16, 64)
		return math.Float64frombits(bits)
	case 'i':
		x, err := strconv.ParseInt(v.s, 10, 64)
		if err != nil || x > 1<<53 || x < -(1<<53) {
			panic(esFail{"OverflowError", "the int does not fit a float exactly"})
		}
		return float64(x)
	}
	esMismatch(v, t)
	return 0
}

// esIn decodes a value of the test into type t.
func esIn(v esVal, t reflect.Type) reflect.Value {
	out := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Bool:
		if v.t != 'T' && v.t != 'F' {
			esMismatch(v, t)
		}
		out.SetBool(v.t == 'T')
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.t == 's' && t.Kind() == reflect.Int32 && utf8.RuneCountInString(v.s) == 1 {
			r, _ := utf8.DecodeRuneInString(v.s)
			out.SetInt(int64(r)) // a rune
			break
		}
		if v.t != 'i' {
			esMismatch(v, t)
		}
		x, err := strconv.ParseInt(v.s, 10, t.Bits())
		if err != nil {
			panic(esFail{"OverflowError", "the int " + v.s + " does not fit a Go " + t.String()})
		}
		out.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.t != 'i' {
			esMismatch(v, t)
		}
		x, err := strconv.ParseUint(v.s, 10, t.Bits())
		if err != nil {
			panic(esFail{"OverflowError", "the int " + v.s + " does not fit a Go " + t.String()})
		}
		out.SetUint(x)
	case reflect.Float32, reflect.Float64:
		d := esFloat(v, t)
		if t.Kind() == reflect.Float32 && !math.IsInf(d, 0) && !math.IsNaN(d) && math.IsInf(float64(float32(d)), 0) {
			panic(esFail{"OverflowError", "the float is out of a float32's range"})
		}
		out.SetFloat(d)
	case reflect.String:
		if v.t != 's' {
			esMismatch(v, t)
		}
		out.SetString(v.s)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && v.t == 'b' {
			out.SetBytes([]byte(v.s))
			break
		}
		if t.Elem().Kind() == reflect.Int32 && v.t == 's' {
			out.Set(reflect.ValueOf([]rune(v.s)).Convert(t)) // a []rune
			break
		}
		if v.t != 'l' && v.t != 'p' && v.t != 'e' {
			esMismatch(v, t)
		}
		s := reflect.MakeSlice(t, len(v.k), len(v.k))
		for j, x := range v.k {
			s.Index(j).Set(esIn(x, t.Elem()))
		}
		out.Set(s)
	case reflect.Array:
		if (v.t != 'l' && v.t != 'p') || len(v.k) != t.Len() {
			esMismatch(v, t)
		}
		for j, x := range v.k {
			out.Index(j).Set(esIn(x, t.Elem()))
		}
	case reflect.Map:
		if v.t != 'd' {
			esMismatch(v, t)
		}
		m := reflect.MakeMapWithSize(t, len(v.k)/2)
		for j := 0; j+1 < len(v.k); j += 2 {
			m.SetMapIndex(esIn(v.k[j], t.Key()), esIn(v.k[j+1], t.Elem()))
		}
		out.Set(m)
	case reflect.Ptr:
		if v.t != 'N' {
			p := reflect.New(t.Elem())
			p.Elem().Set(esIn(v, t.Elem()))
			out.Set(p)
		}
	case reflect.Interface:
		if v.t != 'N' {
			d := esDynamic(v)
			if !d.Type().Implements(t) {
				esMismatch(v, t)
			}
			out.Set(d)
		}
	default:
		esMismatch(v, t)
	}
	return out
}

// esDynamic decodes a value of the test for an interface{} parameter, by the value's own type.
func esDynamic(v esVal) reflect.Value {
	var any interface{}
	anyT := reflect.TypeOf(&any).Elem()
	switch v.t {
	case 'T', 'F':
		return reflect.ValueOf(v.t == 'T')
	case 'i':
		return esIn(v, reflect.TypeOf(0))
	case 'f':
		return reflect.ValueOf(esFloat(v, reflect.TypeOf(0.0)))
	case 's':
		return reflect.ValueOf(v.s)
	case 'b':
		return reflect.ValueOf([]byte(v.s))
	case 'l', 'p', 'e':
		return esIn(v, reflect.SliceOf(anyT))
	case 'd':
		return esIn(v, reflect.MapOf(anyT, anyT))
	}
	return reflect.Zero(anyT)
}

// esOut encodes a result by its type (a map's entries in the order of their wire forms: Go's
// own order is random).
func esOut(x reflect.Value) esVal {
	switch x.Kind() {
	case reflect.Invalid:
		return esVal{t: 'N'}
	case reflect.Bool:
		if x.Bool() {
			return esVal{t: 'T'}
		}
		return esVal{t: 'F'}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return esVal{t: 'i', s: strconv.FormatInt(x.Int(), 10)}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return esVal{t: 'i', s: strconv.FormatUint(x.Uint(), 10)}
	case reflect.Float32, reflect.Float64:
		return esVal{t: 'f', s: fmt.Sprintf("%016x", math.Float64bits(x.Float()))}
	case reflect.String:
		return esVal{t: 's', s: x.String()}
	case reflect.Slice, reflect.Array:
		if x.Kind() == reflect.Slice && x.Type().Elem().Kind() == reflect.Uint8 {
			return esVal{t: 'b', s: string(x.Bytes())}
		}
		v := esVal{t: 'l'}
		if x.Kind() == reflect.Array {
			v.t = 'p'
		}
		for j := 0; j < x.Len(); j++ {
			v.k = append(v.k, esOut(x.Index(j)))
		}
		return v
	case reflect.Map:
		type kv struct {
			key  string
			k, v esVal
		}
		var all []kv
		it := x.MapRange()
		for it.Next() {
			k := esOut(it.Key())
			all = append(all, kv{string(esPut(nil, k)), k, esOut(it.Value())})
		}
		sort.Slice(all, func(a, b int) bool { return all[a].key < all[b].key })
		v := esVal{t: 'd'}
		for _, e := range all {
			v.k = append(v.k, e.k, e.v)
		}
		return v
	case reflect.Ptr, reflect.Interface:
		if x.IsNil() {
			return esVal{t: 'N'}
		}
		return esOut(x.Elem())
	}
	panic(esFail{"TypeError", "a result of type " + x.Type().String() + " cannot cross to the judge"})
}

// esWord names a panic as an exception word of Python's ("Other" where none fits).
func esWord(r interface{}) (string, string) {
	if f, ok := r.(esFail); ok {
		return f.word, f.msg
	}
	msg := fmt.Sprint(r)
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "index out of range"), strings.Contains(m, "slice bounds out of range"):
		return "IndexError", msg
	case strings.Contains(m, "divide by zero"):
		return "ZeroDivisionError", msg
	case strings.Contains(m, "interface conversion"):
		return "TypeError", msg
	case strings.Contains(m, "out of range"), strings.Contains(m, "invalid syntax"):
		return "ValueError", msg
	case strings.Contains(m, "out of memory"):
		return "MemoryError", msg
	}
	return "Other", msg
}

func esCall(f reflect.Value, args []esVal) (out esVal) {
	defer func() {
		if r := recover(); r != nil {
			word, msg := esWord(r)
			if len(msg) > 1000 {
				msg = msg[:1000]
			}
			out = esVal{t: 'x', k: []esVal{{t: 's', s: word}, {t: 's', s: msg}}}
		}
	}()
	t := f.Type()
	if t.IsVariadic() || t.NumIn() != len(args) {
		panic(esFail{"TypeError", fmt.Sprintf("the function takes %d arguments, %d given", t.NumIn(), len(args))})
	}
	in := make([]reflect.Value, len(args))
	for j, a := range args {
		in[j] = esIn(a, t.In(j))
	}
	res := f.Call(in)
	switch len(res) {
	case 0:
		return esVal{t: 'N'}
	case 1:
		return esOut(res[0])
	}
	v := esVal{t: 'p'}
	for _, r := range res {
		v.k = append(v.k, esOut(r))
	}
	return v
}

func main() {
	debug.SetMaxStack(256 << 20)
	in := esReader{bufio.NewReaderSize(os.NewFile(3, "requests"), 1<<16)}
	out := os.NewFile(4, "answers")
	fns := make([]reflect.Value, len(esEntries))
	hello := esVal{t: 'l'}
	for j, e := range esEntries {
		fns[j] = reflect.ValueOf(e)
		hello.k = append(hello.k, esVal{t: 'T'})
	}
	write := func(b []byte) {
		if _, err := out.Write(b); err != nil {
			os.Exit(0)
		}
	}
	write(esPut([]byte{'h'}, hello))
	for {
		switch in.byte() {
		case 'n':
			continue
		case 'c':
		default:
			os.Exit(0)
		}
		k, n := in.count(), in.count()
		args := make([]esVal, n)
		for j := range args {
			args[j] = in.value()
		}
		var r esVal
		if k >= len(fns) {
			r = esVal{t: 'x', k: []esVal{{t: 's', s: "TypeError"}, {t: 's', s: "no such entry point"}}}
		} else {
			r = esCall(fns[k], args)
		}
		if r.t == 'x' {
			write(esPut(esPut([]byte{'x'}, r.k[0]), r.k[1]))
		} else {
			write(esPut([]byte{'v'}, r))
		}
	}
}
