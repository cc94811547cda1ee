// SPDX-License-Identifier: GPL-2.0
// la57-check survey, Go (built with Debian's golang). What it exercises, and all the
// survey table can speak for:
//   Go's heap: maps, slices, strings and a linked list of pointers, enough to run the
//   collector (runtime.GC too), and its arena reservations
//   goroutines, whose stacks come from that heap
// Go compiles ahead of time: there is no JIT.
package main

import (
	"fmt"
	"runtime"
	"sort"
)

type node struct {
	next  *node
	value int
}

func main() {
	words := make([]string, 0, 2000)
	for i := 1; i <= 2000; i++ {
		words = append(words, fmt.Sprintf("w%05d", (i*7919)%2003))
	}
	sort.Strings(words)
	counts := map[string]int{}
	for _, w := range words {
		counts[w[:3]]++
	}
	var list *node
	for i := 0; i < 200000; i++ {
		list = &node{list, i}
	}
	results := make(chan int)
	for g := 0; g < 8; g++ {
		go func(g int) {
			sum := 0
			for n := list; n != nil; n = n.next {
				sum = (sum + n.value*g) % 1000003
			}
			results <- sum
		}(g)
	}
	total := 0
	for g := 0; g < 8; g++ {
		total = (total + <-results) % 1000003
	}
	runtime.GC()
	fmt.Println(words[0], words[len(words)-1], len(counts), total)
}
