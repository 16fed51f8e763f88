// tests/pprof/prog.go — a small Go program profiled the way Go users make
// their profiles (runtime/pprof: a CPU profile, then a heap profile), so
// that the pprof tests read files written by Go's own runtime, not only
// the corpus. Recursion (fib), inlined calls (square into sumSquares),
// work under pprof.Do labels (CPU samples labelled phase=...), and
// allocations of a few sizes (heap samples labelled bytes=...).
//
//	prog CPU.pb.gz HEAP.pb.gz [MILLISECONDS]
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"time"
)

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func square(x int) int { return x * x } // small enough to be inlined

//go:noinline
func sumSquares(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += square(i)
	}
	return s
}

//go:noinline
func sortSome(n int) int {
	v := make([]int, n)
	for i := range v {
		v[i] = (i * 7919) % n
	}
	sort.Ints(v)
	return v[n/2]
}

var keep [][]byte

//go:noinline
func allocSmall() {
	for i := 0; i < 2000; i++ {
		keep = append(keep, make([]byte, 48))
	}
}

//go:noinline
func allocLarge() {
	for i := 0; i < 50; i++ {
		keep = append(keep, make([]byte, 64<<10))
	}
}

func main() {
	ms := 400
	if len(os.Args) > 3 {
		ms, _ = strconv.Atoi(os.Args[3])
	}
	cpu, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		panic(err)
	}
	sink := 0
	deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
	for time.Now().Before(deadline) {
		pprof.Do(context.Background(), pprof.Labels("phase", "fib"), func(context.Context) {
			sink += fib(30)
		})
		pprof.Do(context.Background(), pprof.Labels("phase", "sort"), func(context.Context) {
			sink += sortSome(50000) + sumSquares(1000000)
		})
	}
	pprof.StopCPUProfile()
	cpu.Close()

	runtime.MemProfileRate = 1
	allocSmall()
	allocLarge()
	runtime.GC()
	heap, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := pprof.WriteHeapProfile(heap); err != nil {
		panic(err)
	}
	heap.Close()
	if sink == 42 {
		println(sink)
	}
}
