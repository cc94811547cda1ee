# SPDX-License-Identifier: GPL-2.0
# la57-check survey, Perl 5. What it exercises, and all the survey table can speak for:
#   Perl's allocator (glibc malloc): arrays, hashes, strings, closures and references,
#   and a 16 MiB string (its own mmap). Perl has no JIT.
use strict;
use warnings;
my @words = sort map { sprintf "w%05d", ($_ * 7919) % 2003 } 1 .. 2000;
my %counts;
$counts{ substr $_, 0, 3 }++ for @words;
my $adder = sub { my $n = shift; return sub { return $_[0] + $n } };
my ($add3, $sum) = ($adder->(3), 0);
$sum = $add3->($sum) % 1000003 for 1 .. 200000;
my @boxed = map { { w => $words[$_], d => $_ / 7 } } 0 .. $#words;
my $block = "x" x (16 << 20);
printf "%s %s %d %d %.3f %d\n", $words[0], $words[-1], scalar keys %counts, $sum,
    $boxed[1999]{d}, length $block;
