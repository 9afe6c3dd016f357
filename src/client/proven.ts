import { sealPhoneMessage, type PhoneMessage } from '../../protocol/index.ts';
import type { PairedMachine } from './pairing-store.ts';
import { identitySecretKey } from './phone-identity.ts';
import { pinnedKey } from './phones.ts';

// E9: what this phone sends a machine whose key came with the pairing code: `phone.sealed`, the
// message's JSON text with a box only this phone's key could make for that machine. Without an
// identity or a key from the code (an older pairing or machine) the message goes as it is.
export function provenMessage(paired: PairedMachine, message: PhoneMessage): PhoneMessage {
  const phone = paired.phone;
  const machineKey = pinnedKey(paired);
  const secretKey = phone ? identitySecretKey(phone) : null;
  if (!phone || !machineKey || !secretKey) return message;
  const text = JSON.stringify(message);
  return {
    v: 1,
    type: 'phone.sealed',
    ts: message.ts,
    phoneId: phone.phoneId,
    message: text,
    box: sealPhoneMessage(text, machineKey, secretKey),
  };
}
