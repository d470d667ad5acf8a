/* drv_manymaps.c — one cuMemUnmap over 70 mappings (of 70 handles already released): more than
 * the tracker keeps undo records for (64) in case the driver refuses; the ones it cannot keep are
 * counted (table_full), never dropped silently. Everything is freed. */
#include <cuda.h>

#include "fake_prog.h"

#define MB2 ((size_t)2 << 20)
#define N 70

int main(void)
{
    fake_stdout_lines();
    FAKE_CU(cuInit(0));
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUdeviceptr va;
    FAKE_CU(cuMemAddressReserve(&va, N * MB2, 0, 0, 0));
    for (int i = 0; i < N; i++) {
        CUmemGenericAllocationHandle h;
        FAKE_CU_ALLOC(cuMemCreate(&h, MB2, &prop, 0));
        FAKE_CU(cuMemMap(va + (size_t)i * MB2, MB2, 0, h, 0));
        FAKE_CU(cuMemRelease(h)); /* lives on while mapped */
    }
    FAKE_CU(cuMemUnmap(va, N * MB2)); /* frees all 70 */
    FAKE_CU(cuMemAddressFree(va, N * MB2));
    fake_expect_alloc();
    return 0;
}
