/*
 * A stand-in for Windows' bcryptprimitives.dll under Debian 12's wine 8.0,
 * which lacks it. Go's runtime (1.22 and later) loads it at start for
 * ProcessPrng, its source of random bytes; without it every Go program
 * stops with "fatal error: bcryptprimitives.dll not found". This one
 * exports ProcessPrng over RtlGenRandom (advapi32's SystemFunction036),
 * which wine has. Test use only: scripts/wine-exec.sh places it in the
 * wine prefix's system32 (Go loads system DLLs from there only). Never
 * shipped: Windows 10 and later have the real one.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T n)
{
	while (n > 0) {
		ULONG chunk = n > 0x7fffffff ? 0x7fffffff : (ULONG)n;
		if (!RtlGenRandom(data, chunk))
			return FALSE;
		data += chunk;
		n -= chunk;
	}
	return TRUE;
}
