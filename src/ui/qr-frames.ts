import jsQR from 'jsqr';

// Where the browser has no BarcodeDetector (Linux and Firefox today), each camera frame is read
// at the camera's own resolution with jsQR — not a 240 px crop of what the screen shows: the
// pairing code carries a machine key (E9), so its QR code is dense (version 10 and up), and at a
// few pixels per module a decoder misses it as often as not. Frames larger than this are scaled
// down first, to bound the work per frame on a phone's main thread.
const MAX_FRAME_SIDE_PX = 1280;

export type FrameDetector = {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
};

/** A BarcodeDetector stand-in for QR codes (light on dark too: a terminal may show either). */
export function makeFrameDetector(): FrameDetector {
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  return {
    detect(video) {
      const { videoWidth: w, videoHeight: h } = video;
      if (context === null || w === 0 || h === 0) return Promise.resolve([]);
      const scale = Math.min(1, MAX_FRAME_SIDE_PX / Math.max(w, h));
      canvas.width = Math.round(w * scale);
      canvas.height = Math.round(h * scale);
      context.drawImage(video, 0, 0, canvas.width, canvas.height);
      const image = context.getImageData(0, 0, canvas.width, canvas.height);
      const code = jsQR(image.data, image.width, image.height, {
        inversionAttempts: 'attemptBoth',
      });
      return Promise.resolve(code === null ? [] : [{ rawValue: code.data }]);
    },
  };
}
