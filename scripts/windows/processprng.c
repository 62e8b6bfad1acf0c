/*
 * bcryptprimitives.dll for Wine 8, which lacks it: Rust's std for Windows (1.78 and
 * later) imports ProcessPrng from it to seed its hash maps, so every test binary fails
 * to load (status c0000135) until this stands in. It answers ProcessPrng from
 * advapi32's RtlGenRandom (SystemFunction036), which Wine has. Built with mingw and
 * copied into the Wine prefix's system32 by scripts/test-windows.sh; never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
