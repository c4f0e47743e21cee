__global__ void k(float *p) {
  auto block = cooperative_groups::this_thread_block();
  block.sync();
  cooperative_groups::thread_block_tile<32> tile;
  tile.sync();
}
