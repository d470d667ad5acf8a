/* drv_manypools.c — more memory pools alive at once (1100) than the tracker's pool table holds:
 * the ones it cannot hold are counted (table_full), never dropped silently. */
#include <cuda.h>

#include "fake_prog.h"

#define NPOOLS 1100

int main(void)
{
    fake_drv_start();
    static CUmemoryPool pools[NPOOLS];
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    for (int i = 0; i < NPOOLS; i++)
        FAKE_CU(cuMemPoolCreate(&pools[i], &props));
    for (int i = 0; i < NPOOLS; i++)
        FAKE_CU(cuMemPoolDestroy(pools[i]));
    fake_expect_alloc();
    return 0;
}
