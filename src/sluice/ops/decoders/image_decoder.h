#pragma once
// The CPU image decoder: decoders.image, image_random_crop, image_crop and image_slice are one
// class whose crop is a parameter (DecoderArgs::crop); each operator's file registers it. The
// mixed decoder is in nvjpeg/image_decoder_mixed.cc.

#include "sluice/ops/decoders/image_decoder_base.h"

namespace sluice {

// Headers are read first (in parallel) so that the output is one contiguous batch; then every
// sample decodes straight into its place, the costliest first.
class ImageDecoderCpu : public ImageDecoderBase {
 public:
  using ImageDecoderBase::ImageDecoderBase;
  void run(Workspace& ws) override;
};

}  // namespace sluice
