#!/usr/bin/env bash
# Installs, from Debian's packages, the real services the tests start
# themselves: MariaDB (schema and API tests), RabbitMQ (rpc/amqp), the reference Python Ironic
# (cross-checks in both directions), the openstack baremetal CLI and
# Keystone (test/internal/keystone: python3-keystone served by uwsgi-core
# as a plain process; not the "keystone" package, whose service would
# take port 5000), and tempest with the unmodified ironic-tempest-plugin
# (test/tempest; Debian 12 names it ironic-tempest-plugin, not python3-*),
# QEMU with its iPXE ROMs (test/ipxe boots a VM that chains the
# ipxe_config endpoint, and test/ramdisk boots our deploy ramdisk with
# Debian's kernel, fetched by apt-get download and never installed; TCG,
# no KVM needed), cpio (test/ramdisk and agent/ramdisk read our
# initramfs back with GNU cpio), genisoimage (isoinfo
# reads the config drives we build; Ironic's own build_configdrive writes
# the reference ones with it), openipmi (test/ipmisim runs its
# ipmi_sim as the BMC that ipmitool drives; socat serves the
# ipmitool-socat consoles), and python3-nova (test/nova drives Nova's
# unmodified ironic virt driver, in a Python process, against our API),
# and the tools test/internal/diskimage builds the test whole-disk image
# with (test/vm): syslinux with its MBR (syslinux-common), mtools and
# dosfstools for the FAT partition, fdisk (sfdisk) and gdisk for the
# partition tables, cpio for the initramfs and qemu-utils (qemu-img);
# its kernel is Debian's, fetched with apt-get download + dpkg-deb;
# and parted (agent/disk checks its qcow2 reader
# against qemu-img convert, and its config drive partitions with sgdisk,
# sfdisk and blkid and against the partitions ironic-lib's sgdisk and
# parted commands make),
# and python3-glanceclient and python3-swiftclient, which the reference
# Ironic uses for Glance images (test/glance; python3-ironic only
# recommends them),
# and the boot ISO's parts and oracles (drivers/bootiso): isolinux's
# isolinux.bin, grub-efi-amd64-bin's EFI modules (the in-process ESP's
# GRUB), ovmf (QEMU's UEFI firmware for the UEFI boot test), with
# genisoimage, mtools and dosfstools as the oracles.
# Idempotent; needs root (or sudo). No system service is started: a
# temporary policy-rc.d blocks the packages' init scripts.
set -euo pipefail

PKGS=(
  mariadb-server mariadb-client
  python3-ironic python3-ironicclient python3-openstackclient python3-sushy
  sqlite3 curl procps iproute2
  rabbitmq-server
  python3-keystone uwsgi-core uwsgi-plugin-python3
  tempest python3-tempest ironic-tempest-plugin python3-stestr python3-subunit
  qemu-system-x86 ipxe-qemu cpio
  genisoimage
  openipmi ipmitool socat
  python3-nova
  syslinux syslinux-common mtools dosfstools fdisk gdisk cpio qemu-utils parted
  python3-glanceclient python3-swiftclient
  isolinux grub-efi-amd64-bin ovmf
)

missing=()
for p in "${PKGS[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-test-deps: all packages present"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-test-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi

POLICY=/usr/sbin/policy-rc.d
created=0
if [[ ! -e $POLICY ]]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 755 "$POLICY"
  created=1
fi
cleanup() { if ((created)); then $SUDO rm -f "$POLICY"; fi; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
echo "install-test-deps: installing ${missing[*]}"
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends \
  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}"
