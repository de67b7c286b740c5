import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import type { FileDescriptorSet } from '@bufbuild/protobuf/wkt';
import { descriptorSetBase64 } from '../../gen/descriptor-set.js';

let decoded: FileDescriptorSet | undefined;

/** The API's descriptors with source comments (for reflection and the OpenAPI document), decoded once. */
export function apiDescriptorSet(): FileDescriptorSet {
  decoded ??= fromBinary(FileDescriptorSetSchema, Buffer.from(descriptorSetBase64, 'base64'));
  return decoded;
}
