// The record header's constants (WIRE.md section 3; the layout is drawn in ./records), for the scan and the bulk runs it starts (./bulk).

/** A channel response: the payload is one frame. */
export const KIND_RESPONSE: u8 = 0x01;
/** A channel response finish: the payload is empty. */
export const KIND_FINISH: u8 = 0x02;
/** Bytes before the payload. */
export const HEADER_SIZE: usize = 9;
