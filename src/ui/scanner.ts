// The QR scanner, a lazy chunk loaded only when the owner taps "Scan". The browser's native
// BarcodeDetector is used where it exists; elsewhere jsQR (qr-frames.ts, its own lazy chunk)
// reads the same camera frames at full resolution.
export const SCAN_ERRORS = {
  noCamera: 'no-camera',
  denied: 'denied',
  failed: 'failed',
} as const;
export type ScanError = (typeof SCAN_ERRORS)[keyof typeof SCAN_ERRORS];

export type Scan = { stop(): Promise<void> };
const DETECT_INTERVAL_MS = 250;

type Detector = { detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]> };
type DetectorCtor = new (options: { formats: string[] }) => Detector;

export function classifyCameraError(e: unknown): ScanError {
  const name = (e as { name?: string } | null)?.name ?? '';
  if (name === 'NotAllowedError' || name === 'SecurityError' || /permission/i.test(String(e)))
    return SCAN_ERRORS.denied;
  if (
    name === 'NotFoundError' ||
    name === 'OverconstrainedError' ||
    /no camera|not found/i.test(String(e))
  )
    return SCAN_ERRORS.noCamera;
  return SCAN_ERRORS.failed;
}

export async function startScan(
  container: HTMLElement,
  onCode: (text: string) => void,
): Promise<Scan> {
  if (!navigator.mediaDevices?.getUserMedia)
    throw Object.assign(new Error('no camera API'), { name: 'NotFoundError' });
  const stream = await navigator.mediaDevices.getUserMedia({
    video: { facingMode: 'environment' },
    audio: false,
  });
  try {
    const Native = (globalThis as { BarcodeDetector?: DetectorCtor }).BarcodeDetector;
    // The decoder is fetched only once there is a camera to read, while the viewfinder shows.
    const detector = Native
      ? Promise.resolve(new Native({ formats: ['qr_code'] }))
      : import('./qr-frames.ts').then((m) => m.makeFrameDetector());
    return await scanFrames(detector, stream, container, onCode);
  } catch (e) {
    for (const track of stream.getTracks()) track.stop();
    throw e;
  }
}

async function scanFrames(
  detecting: Promise<Detector>,
  stream: MediaStream,
  container: HTMLElement,
  onCode: (text: string) => void,
): Promise<Scan> {
  void detecting.catch(() => undefined); // awaited below, unless the video fails first
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.setAttribute('aria-hidden', 'true');
  video.srcObject = stream;
  container.append(video);
  await video.play().catch((e: unknown) => {
    video.remove();
    throw e;
  });
  const detector = await detecting.catch((e: unknown) => {
    video.remove();
    throw e;
  });
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const loop = async () => {
    if (stopped) return;
    try {
      const codes = await detector.detect(video);
      const hit = codes[0]?.rawValue;
      if (hit) onCode(hit);
    } catch {
      // a frame that cannot be read is skipped; the next one may be
    }
    timer = setTimeout(() => void loop(), DETECT_INTERVAL_MS);
  };
  void loop();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const track of stream.getTracks()) track.stop();
      video.remove();
      return Promise.resolve();
    },
  };
}
