/**
 * The signed messages of social recovery (recovery.proto, service comment and ApproveRecovery,
 * RejectRecovery): exact lines, LF, no trailing newline. The new-wallet proof and the approval
 * carry a timestamp the client chose; the rejection is built by the server and has none.
 */
const TIMESTAMP = /^Timestamp: (\d{1,15})$/;
const ADDRESS = '0x[0-9a-fA-F]{40}';

export interface NewWalletProof {
  readonly address: string;
  readonly newWalletAddress: string;
  readonly timestampMs: number;
}

/**
 * The new-wallet proof for these addresses (any case in the message, equal to the members), or
 * undefined when `message` is not exactly that template.
 */
export function parseNewWalletProof(
  serviceName: string,
  message: string,
  address: string,
  newWalletAddress: string,
): NewWalletProof | undefined {
  const lines = message.split('\n');
  if (lines.length !== 4 || lines[0] !== `${serviceName} Account Recovery`) return undefined;
  const account = new RegExp(`^Account: (${ADDRESS})$`).exec(lines[1]!)?.[1];
  const wallet = new RegExp(`^New wallet: (${ADDRESS})$`).exec(lines[2]!)?.[1];
  const timestamp = TIMESTAMP.exec(lines[3]!)?.[1];
  if (
    account?.toLowerCase() !== address ||
    wallet?.toLowerCase() !== newWalletAddress ||
    timestamp === undefined
  )
    return undefined;
  return { address, newWalletAddress, timestampMs: Number(timestamp) };
}

interface RequestNames {
  readonly id: string;
  readonly address: string;
  readonly newWalletAddress: string;
}

/** The approval's timestamp when `message` is exactly the approval of this request; undefined otherwise. */
export function parseApproval(
  serviceName: string,
  message: string,
  request: RequestNames,
): number | undefined {
  const lines = message.split('\n');
  const expected = [
    `${serviceName} Recovery Approval`,
    `Request: ${request.id}`,
    `Account: ${request.address}`,
    `New wallet: ${request.newWalletAddress}`,
  ];
  if (lines.length !== 5 || expected.some((line, index) => lines[index] !== line)) return undefined;
  const timestamp = TIMESTAMP.exec(lines[4]!)?.[1];
  return timestamp === undefined ? undefined : Number(timestamp);
}

export function rejectionMessage(
  serviceName: string,
  request: RequestNames,
  reason: string,
): string {
  return [
    `${serviceName} Recovery Rejection`,
    `Request: ${request.id}`,
    `Account: ${request.address}`,
    `New wallet: ${request.newWalletAddress}`,
    `Reason: ${reason}`,
  ].join('\n');
}
