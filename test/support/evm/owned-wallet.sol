// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// A minimal ERC-1271 contract wallet for the tests: any of its owners signs for it (EIP-191
/// personal_sign of the message, 65 bytes), and an owner adds or removes owners.
contract OwnedWallet {
    mapping(address => bool) public isOwner;

    constructor(address owner) {
        isOwner[owner] = true;
    }

    function addOwner(address owner) external {
        require(isOwner[msg.sender], "not an owner");
        isOwner[owner] = true;
    }

    function removeOwner(address owner) external {
        require(isOwner[msg.sender], "not an owner");
        isOwner[owner] = false;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && isOwner[signer] ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

/// CREATE2 factory: the wallet of (owner, salt) has its address before it is deployed, which is
/// what an ERC-6492 signature of a counterfactual wallet relies on.
contract WalletFactory {
    function deploy(address owner, bytes32 salt) external returns (address) {
        return address(new OwnedWallet{salt: salt}(owner));
    }
}
