// SPDX-License-Identifier: GPL-2.0
/*
 * The static glibc program exec is timed with: what glibc's start-up does (TLS, IRELATIVE
 * relocations, stdio not touched) and nothing else. Linked with -static.
 */
int main(void)
{
	return 0;
}
